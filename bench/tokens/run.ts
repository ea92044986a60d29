// What a request's token check costs: the verified-token cache's hit against a
// lookup in the database (the raw baseline, what every request paid before),
// in the same run, on PGlite and on a PostgreSQL server.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PG_MIGRATIONS } from '../../deploy/index.ts'
import { TokenVerifier, createToken, createWorkspace } from '../../workspace/index.ts'
import { migrate, openPglite, openPostgres, type Database } from '../../core/index.ts'
import { postgresAvailable, startTestPostgres } from '../../test/helpers/postgres.ts'
import { summarize } from '../lib/stats.ts'

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)

/** µs per call of `verify`, one call at a time (what one request waits for), and the main thread's CPU µs per call. */
async function time(v: TokenVerifier, token: string): Promise<{ wallUs: number; cpuUs: number }> {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < CALLS; i++) if ((await v.verify(token)) === null) throw new Error('refused')
  const wall = performance.now() - t0
  const c = process.cpuUsage(c0)
  return { wallUs: (wall * 1000) / CALLS, cpuUs: (c.user + c.system) / CALLS }
}

async function engine(name: string, db: Database): Promise<void> {
  await migrate(db, PG_MIGRATIONS)
  const ws = await createWorkspace(db, 'bench tokens')
  const { token } = await createToken(db, { workspaceId: ws.id, scopes: ['logs:write'], resources: 'all' })
  const cached = new TokenVerifier(db)
  await cached.start()
  const direct = new TokenVerifier(db, { maxEntries: 0 })
  const hit: number[] = []
  const hitCpu: number[] = []
  const raw: number[] = []
  const rawCpu: number[] = []
  await time(cached, token)
  await time(direct, token)
  for (let r = 0; r < ROUNDS; r++) {
    const a = await time(direct, token)
    raw.push(a.wallUs)
    rawCpu.push(a.cpuUs)
    const b = await time(cached, token)
    hit.push(b.wallUs)
    hitCpu.push(b.cpuUs)
  }
  const s = cached.stats()
  await cached.close()
  const h = summarize(hit).p50
  const d = summarize(raw).p50
  console.log(`${name}: database lookup ${d.toFixed(1)} µs/call (${summarize(rawCpu).p50.toFixed(1)} µs CPU in this process); ` +
    `cache hit ${h.toFixed(2)} µs/call (${summarize(hitCpu).p50.toFixed(2)} µs CPU); hit / lookup ${(h / d).toFixed(3)}; ` +
    `hits ${s.hits}, misses ${s.misses} (medians of ${ROUNDS} alternating rounds of ${CALLS} calls)`)
}

const dir = mkdtempSync(join(tmpdir(), 'lookout-bench-tokens-'))
try {
  const lite = await openPglite(join(dir, 'pglite'))
  await engine('PGlite', lite)
  await lite.close()
  if (postgresAvailable()) {
    const server = await startTestPostgres()
    try {
      const db = await openPostgres(server.url, 2)
      await engine('PostgreSQL', db)
      await db.close()
    } finally {
      await server.stop()
    }
  } else {
    console.log('PostgreSQL: skipped (initdb not found; Debian package postgresql)')
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
