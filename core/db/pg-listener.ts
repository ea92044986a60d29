// LISTEN on a PostgreSQL server. It needs a connection of its own: a pooled
// one goes back to the pool, and its LISTEN with it. When that connection
// breaks (server restart, failover, a terminated backend) the listener says
// so and reconnects with backoff (p-retry), then says it listens again.
import pg from 'pg'
import pRetry from 'p-retry'
import type { ListenHandlers } from './sql.ts'

const CHANNEL_RE = /^[a-z_][a-z0-9_]{0,62}$/

export async function listenOnServer(url: string, channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
  if (!CHANNEL_RE.test(channel)) throw new Error(`listen: channel ${JSON.stringify(channel)} must be a lower-case identifier`)
  const stopping = new AbortController()
  let client: pg.Client | null = null

  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client({ connectionString: url })
    // A broken connection emits 'error' and then 'end'; 'end' does the work.
    c.on('error', () => undefined)
    try {
      await c.connect()
      await c.query(`LISTEN ${channel}`)
    } catch (err) {
      await c.end().catch(() => undefined)
      throw err
    }
    return c
  }

  const onNotification = (m: pg.Notification): void => {
    if (m.channel === channel) handlers.onPayload(m.payload ?? '')
  }

  const attach = (c: pg.Client): void => {
    client = c
    c.on('notification', onNotification)
    c.once('end', () => {
      client = null
      if (stopping.signal.aborted) return
      handlers.onLost()
      pRetry(connect, { retries: Infinity, minTimeout: 100, maxTimeout: 5_000, signal: stopping.signal, unref: true }).then((next) => {
        if (stopping.signal.aborted) {
          void next.end().catch(() => undefined)
          return
        }
        attach(next)
        handlers.onListening()
      }, () => undefined) // aborted: stopped while reconnecting
    })
  }

  // The first connection fails start-up rather than retrying forever.
  attach(await connect())
  handlers.onListening()
  return async () => {
    stopping.abort()
    const c = client
    client = null
    await c?.end().catch(() => undefined)
  }
}
