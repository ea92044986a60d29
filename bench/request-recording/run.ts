// Does counting every request slow the API down? Three measurements, each with
// a raw baseline measured in the same run. See README.md.
import Fastify from 'fastify'
import { Pool } from 'undici'
import { PG_MIGRATIONS } from '../../deploy/index.ts'
import { RequestRecorder, TokenVerifier, createToken, createWorkspace } from '../../workspace/index.ts'
import { migrate, openPglite, type Database } from '../../core/index.ts'
import { auth } from '../../api/internal.ts'
import { healthRoutes } from '../../api/internal.ts'
import { requestUsage } from '../../api/internal.ts'
import { CursorCodec } from '../../core/index.ts'
import { summarize } from '../lib/stats.ts'

const CALLS = Number(process.env.BENCH_CALLS ?? 2_000_000)
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000)
const HTTP_SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5)
const ROUNDS = 3

const db = await openPglite('memory://')
await migrate(db, PG_MIGRATIONS)
const ws = crypto.randomUUID()
const key = crypto.randomUUID()
const wsReal = (await createWorkspace(db, 'bench')).id
const { token } = await createToken(db, { workspaceId: wsReal, scopes: ['usage:read'], resources: 'all' })
const route = '/v1/workspaces/:workspace_id/resources/:resource_id/logs'
const rec = (i: number) => ({ at: Date.now(), workspaceId: ws, keyId: key, requestId: crypto.randomUUID(), method: 'POST', route, status: i % 50 === 0 ? 429 : 200, durationMs: 1.25 })

// 1. The hook's share: record() against a bare Array.push of the same object, in
// alternating rounds with fresh buffers so neither side pays for the other's garbage.
function hookCost(): { recordNs: number; pushNs: number } {
  const ids = Array.from({ length: 1024 }, () => crypto.randomUUID())
  const one = (i: number) => ({ at: Date.now(), workspaceId: ws, keyId: key, requestId: ids[i & 1023] as string, method: 'POST', route, status: 200, durationMs: 1.25 })
  const per = Math.ceil(CALLS / 10)
  const rec: number[] = []
  const push: number[] = []
  for (let round = 0; round < 10; round++) {
    const recorder = new RequestRecorder(db, { intervalMs: 3_600_000, batchSize: per * 2, maxBuffered: per * 2 })
    let t0 = process.hrtime.bigint()
    for (let i = 0; i < per; i++) recorder.record(one(i))
    rec.push(Number(process.hrtime.bigint() - t0) / per)
    const arr: unknown[] = []
    t0 = process.hrtime.bigint()
    for (let i = 0; i < per; i++) arr.push(one(i))
    push.push(Number(process.hrtime.bigint() - t0) / per)
  }
  return { recordNs: summarize(rec).p50, pushNs: summarize(push).p50 }
}

// 2. The writer: batches of 500 (requests + daily totals, one transaction) against the
// bare multi-row INSERT of the same rows, alternating.
async function writeRate(): Promise<{ recorderRows: number; rawRows: number }> {
  const per = Math.ceil(ROWS / 4)
  const ours: number[] = []
  const raw: number[] = []
  for (let round = 0; round < 4; round++) {
    const batch = Array.from({ length: per }, (_, i) => rec(i))
    const recorder = new RequestRecorder(db, { intervalMs: 3_600_000, batchSize: 500, maxBuffered: per * 2 })
    let t0 = performance.now()
    for (const r of batch) recorder.record({ ...r })
    await recorder.close()
    ours.push(per / ((performance.now() - t0) / 1000))
    t0 = performance.now()
    for (let b = 0; b < per; b += 500) {
      const part = batch.slice(b, b + 500)
      await db.query(
        `INSERT INTO api_requests (at, workspace_id, key_id, request_id, method, route, status, duration_ms)
         SELECT * FROM unnest($1::timestamptz[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::real[])`,
        [part.map((r) => new Date(r.at).toISOString()), part.map((r) => r.workspaceId), part.map((r) => r.keyId), part.map((r) => r.requestId),
          part.map((r) => r.method), part.map((r) => r.route), part.map((r) => r.status), part.map((r) => r.durationMs)])
    }
    raw.push(per / ((performance.now() - t0) / 1000))
  }
  return { recorderRows: summarize(ours).p50, rawRows: summarize(raw).p50 }
}

// 3. HTTP: an authenticated route (token checked against PostgreSQL on every
// request: the verified-token cache off) with and without the recording hook;
// and the public health route.
async function server(withRecording: boolean, database: Database) {
  const app = Fastify({ logger: false })
  await app.register(auth, { db: database, tokens: new TokenVerifier(database, { maxEntries: 0 }) })
  if (withRecording) await app.register(requestUsage, { db: database, cursors: new CursorCodec(Buffer.alloc(32, 1)) })
  await app.register(healthRoutes, { version: 'bench', checks: [] })
  app.get('/v1/workspaces/:workspace_id/ping', { config: { auth: { contract: 'cloud', scope: null } } }, async () => ({ ok: true }))
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, url }
}

interface Http { rps: number; p50: number; p99: number }

/** 16 concurrent request loops for HTTP_SECONDS against one route. */
async function load(url: string, path: string): Promise<Http> {
  const pool = new Pool(url, { connections: 16 })
  const latencies: number[] = []
  const end = performance.now() + HTTP_SECONDS * 1000
  const loop = async () => {
    while (performance.now() < end) {
      const t0 = performance.now()
      const res = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } })
      await res.body.dump()
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`)
      latencies.push(performance.now() - t0)
    }
  }
  const t0 = performance.now()
  await Promise.all(Array.from({ length: 16 }, loop))
  const seconds = (performance.now() - t0) / 1000
  await pool.close()
  const s = summarize(latencies)
  return { rps: latencies.length / seconds, p50: Number(s.p50.toFixed(2)), p99: Number(s.p99.toFixed(2)) }
}

async function http(withRecording: boolean, path: string): Promise<Http> {
  const { app, url } = await server(withRecording, db)
  try {
    return await load(url, path)
  } finally {
    await app.close()
  }
}

async function compare(name: string, path: string): Promise<void> {
  const on: Http[] = []
  const off: Http[] = []
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate the order so warm-up and machine noise fall on both sides.
    if (i % 2 === 0) {
      off.push(await http(false, path))
      on.push(await http(true, path))
    } else {
      on.push(await http(true, path))
      off.push(await http(false, path))
    }
  }
  const med = (xs: number[]) => summarize(xs).p50
  const row = (label: string, xs: Http[]) => `${label}: ${Math.round(med(xs.map((x) => x.rps)))} req/s, p50 ${med(xs.map((x) => x.p50))} ms, p99 ${med(xs.map((x) => x.p99))} ms`
  console.log(`HTTP ${name}, 16 connections, ${HTTP_SECONDS} s x ${ROUNDS} rounds (medians):`)
  console.log(`  ${row('without recording', off)}`)
  console.log(`  ${row('with recording   ', on)}`)
  console.log(`  throughput ratio with/without: ${(med(on.map((x) => x.rps)) / med(off.map((x) => x.rps))).toFixed(3)}`)
}

const hook = hookCost()
console.log(`record() (medians of 10 rounds): ${hook.recordNs.toFixed(1)} ns/call (${(1e9 / hook.recordNs / 1e6).toFixed(1)} M ops/s); bare Array.push of the same object: ${hook.pushNs.toFixed(1)} ns/call; ratio ${(hook.recordNs / hook.pushNs).toFixed(2)}x`)
const w = await writeRate()
console.log(`writes to PGlite, batches of 500 (medians of 4 rounds): recorder (requests + daily totals, one transaction) ${Math.round(w.recorderRows)} rows/s; bare INSERT of the same rows ${Math.round(w.rawRows)} rows/s; ratio ${(w.recorderRows / w.rawRows).toFixed(2)}`)
await compare('GET P/ping (authenticated: one row per request)', `/v1/workspaces/${wsReal}/ping`)
await compare('GET /v1/health (public: counted in memory only)', '/v1/health')
const stored = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM api_requests WHERE route LIKE '%/ping'`)
console.log(`requests recorded by the authenticated runs: ${stored.rows[0]?.n}`)
await db.close()
