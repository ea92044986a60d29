// In-process wake-ups: a route that queues a delivery nudges the worker of
// that queue in this process, so it does not wait for its next poll. Workers
// in other processes still find the row on their next poll.
import { EventEmitter } from 'node:events'

export const QUEUES = { alerts: 'alerts', webhooks: 'webhooks', notifications: 'notifications' } as const
export type Queue = (typeof QUEUES)[keyof typeof QUEUES]

const bus = new EventEmitter()
bus.setMaxListeners(0)

export function wake(queue: Queue): void {
  bus.emit(queue)
}

/** Calls fn on every wake-up of the queue; returns the unsubscribe function. */
export function onWake(queue: Queue, fn: () => void): () => void {
  bus.on(queue, fn)
  return () => {
    bus.off(queue, fn)
  }
}
