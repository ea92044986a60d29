// Project API benchmark: create task, list tasks with filters over a large
// workspace, and revision-checked update, on PGlite and on PostgreSQL. The
// server runs as a child process (`lookout serve`); this process drives it with
// undici and, in the same run, measures the same work without the API (the list
// SQL straight through the driver, the store functions in-process) as the
// baseline the API's figures are divided by. See README.md.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import { createWorkspace, projectStore, type ProjectCtx } from '../../workspace/internal.ts'
import { openPglite, openPostgres, type Database } from '../../core/index.ts'
import { percentile } from '../lib/stats.ts'
import { processCpuSeconds, treeCpu } from '../lib/procstat.ts'
import { listCases, seed } from './seed.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../../test/helpers/postgres.ts'

const TASKS = Number(process.env.BENCH_TASKS ?? 100_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const ENGINES = (process.env.BENCH_ENGINES ?? 'pglite,postgres').split(',')
/** The latency aim is stated at 4 concurrent clients: the list scenario runs again at this concurrency. */
const FEW = Number(process.env.BENCH_FEW_CONNECTIONS ?? 4)
const SCENARIOS = ['list', `list@${FEW}`, 'update', 'create'] as const

/**
 * CPU seconds of a PostgreSQL server: the postmaster, its live backends, and the
 * backends that ended (a pool closing idle connections mid-run would otherwise
 * take their CPU out of the sum).
 */
function postgresCpu(pg: TestPostgres | null): number {
  if (pg === null) return 0
  return treeCpu(Number(readFileSync(join(pg.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]))
}

/** CPU spent per request by each process involved, in microseconds. */
interface CpuSplit {
  server: number
  database: number
  driver: number
}

interface Figures {
  cpu?: CpuSplit
  requests: number
  errors: number
  seconds: number
  rps: number
  p50: number
  p99: number
}

/** Runs `op` from `concurrency` loops for `seconds`; every call's latency is kept. */
async function drive(seconds: number, concurrency: number, op: (i: number) => Promise<boolean>): Promise<Figures> {
  const lat: number[] = []
  let errors = 0
  let next = 0
  const end = performance.now() + seconds * 1000
  const start = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const i = next++
      const t0 = performance.now()
      const ok = await op(i).catch(() => false)
      lat.push(performance.now() - t0)
      if (!ok) errors++
    }
  }))
  const took = (performance.now() - start) / 1000
  return { requests: lat.length, errors, seconds: took, rps: lat.length / took, p50: percentile(lat, 50), p99: percentile(lat, 99) }
}

/** CPU the server and its database burn with no requests (the other roles' background loops), per second. */
interface Background {
  server: number
  database: number
}
const NO_BACKGROUND: Background = { server: 0, database: 0 }

async function background(serverPid: number, pg: TestPostgres | null, seconds = 5): Promise<Background> {
  const s0 = processCpuSeconds(serverPid)
  const d0 = postgresCpu(pg)
  await new Promise((r) => setTimeout(r, seconds * 1000))
  return { server: (processCpuSeconds(serverPid) - s0) / seconds, database: (postgresCpu(pg) - d0) / seconds }
}

/**
 * `drive`, with the CPU each process spent per request. The background rate
 * measured while idle is taken out, so the split is the requests' own cost.
 */
async function measured(serverPid: number | null, pg: TestPostgres | null, run: () => Promise<Figures>, bg: Background = NO_BACKGROUND): Promise<Figures> {
  const s0 = serverPid === null ? 0 : processCpuSeconds(serverPid)
  const d0 = postgresCpu(pg)
  const c0 = process.cpuUsage()
  const fig = await run()
  const c1 = process.cpuUsage(c0)
  const per = (sec: number) => (Math.max(0, sec) * 1e6) / Math.max(1, fig.requests)
  fig.cpu = {
    server: serverPid === null ? 0 : per(processCpuSeconds(serverPid) - s0 - bg.server * fig.seconds),
    database: per(postgresCpu(pg) - d0 - bg.database * fig.seconds),
    driver: per((c1.user + c1.system) / 1e6),
  }
  return fig
}

function serve(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')
  const child = spawn(process.execPath, [...nodeArgs, 'deploy/lookout.ts', 'serve'], {
    env: { ...process.env, LOOKOUT_PORT: '0', LOOKOUT_LOG_LEVEL: 'warn', LOOKOUT_WORKERS: '1', ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (d) => {
      out += d
      const m = /on (http:\/\/\S+)/.exec(out)
      if (m) resolve({ child, url: m[1] as string })
    })
    child.on('exit', (c) => reject(new Error(`server exited ${c}`)))
  })
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.on('exit', r))
  child.kill('SIGTERM')
  await exited
}

interface Row {
  engine: string
  scenario: string
  api: Figures
  raw: Figures
}

async function runEngine(engine: string, pg: TestPostgres | null): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), `lookout-bench-projects-${engine}-`))
  const env: Record<string, string> = { LOOKOUT_DATA_DIR: dataDir }
  let dbUrl: string | undefined
  if (pg !== null) dbUrl = env.DATABASE_URL = await pg.database(`bench_${Date.now()}`)
  const open = (): Promise<Database> => (dbUrl === undefined ? openPglite(join(dataDir, 'postgres')) : openPostgres(dbUrl, CONNECTIONS))
  try {
    // Seed and measure the baseline in this process first (PGlite's directory belongs to one process at a time).
    const db = await open()
    const t0 = performance.now()
    const w = await seed(db, TASKS)
    console.log(`[${engine}] seeded ${TASKS} tasks in ${((performance.now() - t0) / 1000).toFixed(1)} s; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
    const ctx: ProjectCtx = { db, workspaceId: w.workspaceId, actor: { tokenId: 'bench', userId: 1, owner: false } }
    const cases = listCases(w)
    const queries = cases.map((c) => projectStore.itemPageQuery(w.workspaceId, ['task'], c.filters, true, 50, null))
    // As the route runs them: named prepared statements on a server.
    for (const q of queries) await db.query(q.text, q.values, { prepared: true })
    const raw: Record<string, Figures> = {}
    const rawList = (concurrency: number) => measured(null, pg, () => drive(SECONDS, concurrency, async (i) => {
      const q = queries[i % queries.length] as { text: string; values: unknown[] }
      await db.query(q.text, q.values, { prepared: true })
      return true
    }))
    raw.list = await rawList(CONNECTIONS)
    raw[`list@${FEW}`] = await rawList(FEW)
    raw.update = await measured(null, pg, () => drive(SECONDS, CONNECTIONS, async (i) => {
      const id = w.idsForRaw[i]
      if (id === undefined) return false
      await projectStore.updateTask(ctx, id, { revision: 1, title: `raw ${i}` })
      return true
    }))
    // Creates go to a workspace of their own, removed after the turn: new tasks in the seeded one
    // would head every list scan, and the API's list turn would page over rows the raw turn never saw.
    const other = await createWorkspace(db, 'bench raw creates')
    await projectStore.ensureProject(db, other.id)
    const otherLabel = randomUUID()
    await db.query(`INSERT INTO project_taxonomy (id, workspace_id, kind, name, position) VALUES ($1, $2, 'label', 'label 0', 10)`, [otherLabel, other.id])
    const createCtx: ProjectCtx = { ...ctx, workspaceId: other.id }
    raw.create = await measured(null, pg, () => drive(SECONDS, CONNECTIONS, async (i) => {
      await projectStore.createTask(createCtx, { idempotency_key: randomUUID(), title: `raw create ${i}`, priority: 'high', label_ids: [otherLabel] })
      return true
    }))
    // Its tasks go again (they would head the seq index every list scans); the updates' dead rows
    // and the deletes are vacuumed now, not during the API's turn, which so sees the raw turn's data.
    await db.query('DELETE FROM project_activity WHERE workspace_id = $1', [other.id])
    await db.query('DELETE FROM project_idempotency WHERE workspace_id = $1', [other.id])
    await db.query('DELETE FROM project_items WHERE workspace_id = $1', [other.id])
    await db.exec('VACUUM ANALYZE')
    await db.close()

    const { child, url } = await serve(env)
    try {
      const pool = new Pool(url, { connections: CONNECTIONS, pipelining: 1 })
      const headers = { authorization: `Bearer ${w.token}`, 'content-type': 'application/json' }
      const P = `/v1/workspaces/${w.workspaceId}`
      // Wait out the start-up (the overload guard remembers its event-loop delay).
      for (;;) {
        const r = await pool.request({ method: 'GET', path: '/v1/health' })
        await r.body.dump()
        if (r.statusCode === 200) break
        await new Promise((res) => setTimeout(res, 200))
      }
      const call = async (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, want = 200) => {
        const r = await pool.request({ method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) })
        await r.body.dump()
        return r.statusCode === want
      }
      const api: Record<string, Figures> = {}
      await drive(2, CONNECTIONS, (i) => call('GET', `${P}/tasks?${(cases[i % cases.length] as { query: string }).query}`))
      const bg = await background(child.pid as number, pg)
      console.log(`[${engine}] idle background CPU: server ${(bg.server * 100).toFixed(1)}% of a core, database ${(bg.database * 100).toFixed(1)}%`)
      const apiList = (concurrency: number) => measured(child.pid ?? null, pg, () => drive(SECONDS, concurrency, (i) => call('GET', `${P}/tasks?${(cases[i % cases.length] as { query: string }).query}`)), bg)
      api.list = await apiList(CONNECTIONS)
      api[`list@${FEW}`] = await apiList(FEW)
      api.update = await measured(child.pid ?? null, pg, () => drive(SECONDS, CONNECTIONS, (i) => {
        const id = w.idsForApi[i]
        return id === undefined ? Promise.resolve(false) : call('PATCH', `${P}/tasks/${id}`, { revision: 1, title: `api ${i}` })
      }), bg)
      api.create = await measured(child.pid ?? null, pg, () => drive(SECONDS, CONNECTIONS, (i) => call('POST', `${P}/tasks`, { idempotency_key: randomUUID(), title: `api create ${i}`, priority: 'high', label_ids: [w.labels[0]] }, 201)), bg)
      await pool.close()
      return SCENARIOS.map((s) => ({ engine, scenario: s, api: api[s] as Figures, raw: raw[s] as Figures }))
    } finally {
      await stop(child)
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const rows: Row[] = []
let pg: TestPostgres | null = null
try {
  for (const engine of ENGINES) {
    if (engine === 'postgres') {
      if (!postgresAvailable()) {
        console.log('[postgres] skipped: PostgreSQL binaries not installed')
        continue
      }
      pg ??= await startTestPostgres({ maxConnections: 200 })
    }
    rows.push(...await runEngine(engine, engine === 'postgres' ? pg : null))
  }
} finally {
  await pg?.stop()
}

const f = (n: number, d = 0) => n.toFixed(d)
console.log(`\n${TASKS} seeded tasks, ${SECONDS} s per scenario, ${CONNECTIONS} concurrent requests\n`)
console.log('| engine | scenario | API req/s | API p50 ms | API p99 ms | API errors | raw ops/s | raw p50 ms | raw p99 ms | raw errors | API / raw |')
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const r of rows) {
  console.log(`| ${r.engine} | ${r.scenario} | ${f(r.api.rps)} | ${f(r.api.p50, 2)} | ${f(r.api.p99, 2)} | ${r.api.errors} | ${f(r.raw.rps)} | ${f(r.raw.p50, 2)} | ${f(r.raw.p99, 2)} | ${r.raw.errors} | ${f(r.api.rps / r.raw.rps, 2)} |`)
}
console.log('\nCPU per request (µs): server process / database server (PostgreSQL; PGlite runs inside the server or, for raw, the driver) / this driving process\n')
// On a shared machine the measured rate is the share of CPU the run got; the CPU per request
// gives the rate free cores would sustain for the server and its database (client elsewhere),
// bounded by the server's one event loop (which also runs PGlite).
const CORES = Number(process.env.BENCH_CORES ?? 2)
console.log(`| engine | scenario | API server | API database | API driver | raw database | raw driver | API req/s on ${CORES} free cores |`)
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const r of rows) {
  const a = r.api.cpu as CpuSplit
  const b = r.raw.cpu as CpuSplit
  console.log(`| ${r.engine} | ${r.scenario} | ${f(a.server)} | ${f(a.database)} | ${f(a.driver)} | ${f(b.database)} | ${f(b.driver)} | ${f(Math.min((CORES * 1e6) / (a.server + a.database), 1e6 / a.server))} |`)
}
// The figure the aim is stated in: database CPU per 50-task page, through the API and raw (the page's SQL alone).
for (const r of rows.filter((x) => x.scenario.startsWith('list'))) {
  const a = r.api.cpu as CpuSplit
  const b = r.raw.cpu as CpuSplit
  const where = r.engine === 'postgres' ? 'PostgreSQL backends' : 'PGlite (in the server / driving process)'
  const apiDb = r.engine === 'postgres' ? a.database : a.server
  const rawDb = r.engine === 'postgres' ? b.database : b.driver
  console.log(`[${r.engine}] ${r.scenario}: database CPU per 50-task page (${where}): API ${f(apiDb)} µs, raw ${f(rawDb)} µs; API ${f(r.api.rps)} req/s, raw ${f(r.raw.rps)} ops/s, API/raw ${f(r.api.rps / r.raw.rps, 2)}, API p99 ${f(r.api.p99, 2)} ms`)
}
console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
