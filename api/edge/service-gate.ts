// The gate a restore on a running service closes (deploy/backup-live.ts): from
// the moment the owner asks for it until the stores stop, every new request
// gets 503 LOOKOUT_RESTORING with Retry-After (in the route's contract), and
// none meets a store that is being closed. Requests already in flight answer
// first: the apps drain before the stores close.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { RestoringError } from '../errors.ts'

export class ServiceGate {
  #reason: string | null = null

  /** From now on every request is refused with the reason (which backup). */
  close(reason: string): void {
    this.#reason = reason
  }

  get reason(): string | null {
    return this.#reason
  }
}

async function gatePlugin(app: FastifyInstance, opts: { gate: ServiceGate }): Promise<void> {
  app.addHook('onRequest', async (_req, reply) => {
    const reason = opts.gate.reason
    if (reason === null) return
    // Each refused client lets go of its connection, so the close that follows is not held open.
    void reply.header('connection', 'close')
    throw new RestoringError(reason)
  })
}

export const serviceGate = fp(gatePlugin, { name: 'lookout-service-gate' })
