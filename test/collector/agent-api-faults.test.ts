// `lookout collector` (its own process) against an API that misbehaves, through
// an HTTP proxy the test controls (README "Collectors"): an API clock off by
// minutes draws the clock warning; pushes answered 5xx are retried with a
// doubling back-off (no hammering), the observations kept meanwhile arrive once
// the API answers again.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestLookout } from '../helpers/lookout.ts'
import { startTcp } from '../helpers/servers.ts'
import { spawnCollector, until } from '../helpers/collector-process.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
const rid = await lk.resource('faulty-api')
const P = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`
const tcp = await startTcp()
t.teardown(() => tcp.close())

/** What the proxy does to the API's answers. */
const proxy = { skewMs: 0, failPushes: false, pushAttempts: [] as number[] }
const body = async (req: IncomingMessage): Promise<Buffer> => {
  const parts: Buffer[] = []
  for await (const p of req) parts.push(p as Buffer)
  return Buffer.concat(parts)
}
const server = createServer((req, res) => {
  void (async () => {
    const sent = await body(req)
    if (req.method === 'POST' && req.url === '/v1/collector/observations') {
      proxy.pushAttempts.push(Date.now())
      if (proxy.failPushes) {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":[{"loc":[],"msg":"injected","type":"LOOKOUT_INTERNAL"}]}')
        return
      }
    }
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v
    const upstream = await fetch(lk.url + (req.url ?? '/'), { method: req.method, headers, body: sent.length === 0 ? undefined : sent })
    let answer = Buffer.from(await upstream.arrayBuffer())
    if (req.url?.startsWith('/v1/collector/checks') === true && upstream.status === 200 && proxy.skewMs !== 0) {
      const parsed = JSON.parse(answer.toString()) as { server_time: string }
      parsed.server_time = new Date(Date.parse(parsed.server_time) + proxy.skewMs).toISOString()
      answer = Buffer.from(JSON.stringify(parsed))
    }
    const out: Record<string, string> = { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }
    const etag = upstream.headers.get('etag')
    if (etag !== null) out.etag = etag
    res.writeHead(upstream.status, out).end(answer)
  })().catch((err: unknown) => res.writeHead(502).end(String(err)))
})
server.listen(0, '127.0.0.1')
await once(server, 'listening')
t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
const proxyUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`

const enrolled = await lk.req('POST', `${P}/sources`, { action: 'enroll', name: 'dc-faults', kind: 'collector' })
const check = (await lk.req('POST', P, {
  name: 'private port', kind: 'tcp', location: 'collector', source_id: enrolled.body.source.id, configuration: { host: '127.0.0.1', port: tcp.port, interval_seconds: 1 },
})).body
const dataDir = mkdtempSync(join(tmpdir(), 'lookout-collector-faults-'))
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
// The API's clock reads ten minutes behind this machine's from the first answer on.
proxy.skewMs = -10 * 60_000
const collector = spawnCollector(proxyUrl, enrolled.body.token, dataDir)
t.teardown(() => collector.kill9())
const results = async (since: number) => (await lk.lookout.db.query<{ n: number }>(
  'SELECT count(*)::int AS n FROM monitor_results WHERE check_id = $1 AND observed_at >= $2', [check.id, new Date(since).toISOString()])).rows[0]?.n ?? 0

t.test('an API clock off by minutes draws the warning, once', async (t) => {
  const warned = await until('the clock warning', async () => (/clock is (\d+\.\d) s ahead of the API's/.exec(collector.output()) ?? undefined), 60_000)
  t.ok(Math.abs(Number(warned[1]) - 600) < 5, `ten minutes, as a positive duration (${warned[0]})`)
  t.equal(collector.output().match(/synchronize it \(NTP\)/g)?.length, 1, 'said once')
  proxy.skewMs = 0
})

t.test('pushes answered 500 back off, doubling; the kept observations arrive afterwards', async (t) => {
  await until('observations arriving', async () => ((await results(0)) > 0 ? true : undefined), 60_000)
  proxy.failPushes = true
  const failingFrom = Date.now()
  proxy.pushAttempts = []
  // Long enough for the back-off to reach several seconds (0.5, 1, 2, 4 s ...).
  await until('five failed pushes', async () => (proxy.pushAttempts.length >= 5 ? true : undefined), 60_000)
  const attempts = proxy.pushAttempts.slice(0, 5)
  const gaps = attempts.slice(1).map((at, i) => at - (attempts[i] as number))
  t.comment(`gaps between failed pushes: ${gaps.join(', ')} ms`)
  // Doubling from 0.5 s: the i-th wait is at least 0.5 s x 2^i (a request's own latency only adds to it).
  for (let i = 0; i < gaps.length; i++) t.ok((gaps[i] as number) >= 0.9 * 500 * 2 ** i, `wait ${i + 1}: ${gaps[i]} ms, at least ${500 * 2 ** i} ms`)
  t.ok((gaps[gaps.length - 1] as number) >= 3_000, 'the fourth wait is seconds long: no hammering')
  proxy.failPushes = false
  await until('the kept observations stored', async () => ((await results(failingFrom)) >= 3 ? true : undefined), 60_000)
  t.pass('the observations made while pushes failed arrived once the API answered')
})
