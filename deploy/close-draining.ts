// Closing a Fastify app once its requests in flight have answered, without
// waiting on connections that carry no request.
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'

/** How often a close drops the connections that carry no request. */
const SWEEP_MS = 50
/** A connection this young may be sending its first request right now. */
const FIRST_BYTES_GRACE_MS = 200

/**
 * Tracks `app`'s connections (call it before listen) and returns the app's
 * draining close. Two kinds of connection would hold a close open:
 * - a keep-alive connection that goes idle during the close (until its keep-alive timeout);
 * - one that never sent a byte. Node counts it as a request in progress until
 *   its headers timeout (60 s, checked every 30 s). Pooled clients and browsers
 *   open such connections ahead of use; one kept `lookout serve` from draining
 *   within its 15 s (test/deploy/serve.test.ts).
 * Both kinds are dropped as they appear; requests in flight answer first.
 */
export function drainingClose(app: FastifyInstance): () => Promise<void> {
  const opened = new Map<Socket, number>()
  app.server.on('connection', (socket: Socket) => {
    opened.set(socket, Date.now())
    socket.once('close', () => opened.delete(socket))
  })
  return async () => {
    const sweep = (): void => {
      app.server.closeIdleConnections()
      const now = Date.now()
      for (const [socket, at] of opened) {
        if (socket.bytesRead === 0 && now - at >= FIRST_BYTES_GRACE_MS) socket.destroy()
      }
    }
    const timer = setInterval(sweep, SWEEP_MS)
    try {
      await app.close()
    } finally {
      clearInterval(timer)
    }
  }
}
