// LOOKOUT_METRICS_LISTEN: GET /metrics on a listener of its own (a private
// interface or port the scraper reaches, firewalled apart from the API), in
// every role, the loader and monitor included. A token, when also set, is
// required here too.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createHash, timingSafeEqual } from 'node:crypto'
import type { LookoutMetrics } from './registry.ts'

export interface MetricsListener {
  url: string
  close(): Promise<void>
}

export interface MetricsListenOptions {
  host: string
  port: number
  token?: string
}

const digest = (s: string) => createHash('sha256').update(s).digest()

function authorized(req: IncomingMessage, expected: Buffer | null): boolean {
  if (expected === null) return true
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')
  return m !== null && timingSafeEqual(digest(m[1] as string), expected)
}

export async function startMetricsListener(metrics: LookoutMetrics, opts: MetricsListenOptions): Promise<MetricsListener> {
  const expected = opts.token === undefined || opts.token === '' ? null : digest(opts.token)
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the metrics listener serves GET /metrics only\n')
      return
    }
    if (!authorized(req, expected)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('a bearer credential is required\n')
      return
    }
    metrics.text().then((text) => {
      res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' })
      res.end(req.method === 'HEAD' ? undefined : text)
    }, (err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics collection failed: ${String((err as Error)?.message ?? err)}\n`)
    })
  })
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const addr = server.address()
  const port = typeof addr === 'object' && addr !== null ? addr.port : opts.port
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host
  return {
    url: `http://${host}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}
