// The JetStream backlog between ingest and the loaders: messages and bytes in
// the LOGS stream (a work queue: a message leaves it when a loader acks it).
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream'

export interface Backlog {
  messages: number
  bytes: number
}

export class BacklogReader {
  readonly #nc: NatsConnection
  readonly #jsm: JetStreamManager
  readonly #stream: string

  private constructor(nc: NatsConnection, jsm: JetStreamManager, stream: string) {
    this.#nc = nc
    this.#jsm = jsm
    this.#stream = stream
  }

  static async open(natsUrl: string, stream = 'LOGS'): Promise<BacklogReader> {
    const nc = await connect({ servers: natsUrl.split(','), name: 'lookout-bench', maxReconnectAttempts: 3 })
    return new BacklogReader(nc, await jetstreamManager(nc), stream)
  }

  get connection(): NatsConnection {
    return this.#nc
  }

  async read(): Promise<Backlog> {
    const si = await this.#jsm.streams.info(this.#stream)
    return { messages: si.state.messages, bytes: si.state.bytes }
  }

  async close(): Promise<void> {
    await this.#nc.close()
  }
}
