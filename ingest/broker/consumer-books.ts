// The loader consumer's books after a crash. Debian's nats-server 2.9.10, restarted
// after a kill of Lookout, can disagree with its own stream: the consumer keeps
// messages "unacknowledged" that were stored, acknowledged and removed (it never
// hands them out again, and they count against max_ack_pending for good), and the
// work-queue stream keeps messages the consumer counts as acknowledged (they fill the
// stream's byte budget for good). serve-kill-insert.fault.ts saw both in about one
// run in five. A broker that is the only client of a server it has just started
// (the managed nats-server) can set the books straight: it recreates the consumer,
// which then hands out every message the stream holds. Nothing is loaded twice:
// each was published before the loader started, so the loader looks it up in
// ClickHouse first (loader-dedup.ts) and acknowledges what is stored already.
import type { ConsumerConfig, ConsumerInfo, JetStreamManager, StreamInfo } from '@nats-io/jetstream'

/** What a reset found: messages delivered to an earlier client, and messages the consumer will never deliver. */
export interface ConsumerReset {
  unacknowledged: number
  stranded: number
}

/**
 * The books a previous life left, or null when there is nothing to set straight.
 * Every delivery the consumer remembers went to a client of an earlier server,
 * and every message the stream holds beyond what the consumer will still
 * deliver (pending or unacknowledged) is stranded.
 */
export function leftBooks(stream: StreamInfo, consumer: ConsumerInfo): ConsumerReset | null {
  const unacknowledged = consumer.num_ack_pending
  const stranded = Math.max(0, stream.state.messages - consumer.num_pending - unacknowledged)
  return unacknowledged === 0 && stranded === 0 ? null : { unacknowledged, stranded }
}

/**
 * Recreates the consumer (same name and configuration) when a previous life left
 * books; `consumer` is its info as the broker read it at start. Returns what it found.
 */
export async function resetLeftBooks(
  jsm: JetStreamManager, stream: string, config: Partial<ConsumerConfig> & { durable_name: string }, consumer: ConsumerInfo,
): Promise<ConsumerReset | null> {
  const left = leftBooks(await jsm.streams.info(stream), consumer)
  if (left === null) return null
  await jsm.consumers.delete(stream, config.durable_name)
  await jsm.consumers.add(stream, config)
  return left
}
