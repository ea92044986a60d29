// Portal sync benchmark (README.md next to this file): push throughput of
// 10,000 offline tasks, convergence after a cloud SIGKILL and restart in the
// middle of a sync, pull throughput of tasks made on the portal. A cloud
// `lookout serve` and a `lookout desktop` run as child processes on their own
// temporary data directories; every count is checked at the end.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import { callAdmin } from '../../deploy/index.ts'
import { openPglite } from '../../core/index.ts'

const ROUND = Number(process.env.BENCH_ROUND_TASKS ?? 1_000)
// Measured rounds of ROUND tasks each, one after the other on the same processes.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const PUSH = Number(process.env.BENCH_PUSH_TASKS ?? 10_000)
const KILL_BATCH = Number(process.env.BENCH_KILL_TASKS ?? 2_000)
const PULL = Number(process.env.BENCH_PULL_TASKS ?? 2_000)
const CONCURRENCY = 16
// BENCH_PROFILE_DIR=dir: both services run with --cpu-prof into dir and stop (SIGTERM, so the profiles are written) after the round.
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR

const base = mkdtempSync(join(tmpdir(), 'lookout-bench-portal-'))
chmodSync(base, 0o755)
const children: ChildProcess[] = []
// Each service runs in a process group of its own with the nats-server it manages:
// the whole group goes at the end, also the nats-server of the cloud killed mid-run.
const cleanup = () => {
  for (const c of children) {
    try {
      if (c.pid !== undefined) process.kill(-c.pid, 'SIGKILL')
    } catch {
      // The group is gone already.
    }
  }
  rmSync(base, { recursive: true, force: true })
}
process.on('exit', cleanup)

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as { port: number }).port
    s.close(() => resolve(p))
  })
})

function start(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const prof = PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${args[0]}.cpuprofile`]
  const child = spawn(process.execPath, [...prof, 'deploy/lookout.ts', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  children.push(child)
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (d) => {
      out += d
      const m = ready.exec(out)
      if (m !== null) resolve({ child, match: m })
    })
    child.stderr?.on('data', (d) => (out += d))
    child.once('exit', (c) => reject(new Error(`${args[0]} exited ${c}: ${out}`)))
  })
}

const cloudDir = join(base, 'cloud')
const cloudPort = await freePort()
// BENCH_CLOUD_FEATURES=task-taxonomy-v1: a cloud without task batches (one request per creation), for the comparison.
const cloudEnv = {
  LOOKOUT_DATA_DIR: cloudDir, LOOKOUT_PORT: String(cloudPort), LOOKOUT_WORKERS: '1', LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0', LOOKOUT_LOG_LEVEL: 'warn',
  ...(process.env.BENCH_CLOUD_FEATURES === undefined ? {} : { LOOKOUT_PORTAL_FEATURES: process.env.BENCH_CLOUD_FEATURES }),
}
let cloud = (await start(['serve'], cloudEnv, /on (http:\/\/\S+)/)).child
const cloudUrl = `http://127.0.0.1:${cloudPort}`
const ws = (await callAdmin(cloudDir, 'POST', '/admin/workspaces', { name: 'bench' }) as { id: string }).id
const token = (await callAdmin(cloudDir, 'POST', '/admin/tokens', { workspace: ws, scopes: ['project:read', 'project:write'], resources: 'all', name: 'desktop' }) as { token: string }).token
const cloudPool = new Pool(cloudUrl, { connections: CONCURRENCY })

mkdirSync(join(base, 'run'), { mode: 0o755 })
const desktopEnv = {
  XDG_RUNTIME_DIR: join(base, 'run'), LOOKOUT_DATA_DIR: join(base, 'desktop'), LOOKOUT_WORKERS: '1', LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0',
  LOOKOUT_SECRET_KEY: '22'.repeat(32), LOOKOUT_PORTAL_SYNC_MS: '3600000',
}
const desktopStart = await start(['desktop'], desktopEnv, /owner socket (\S+)/)
const socketPath = desktopStart.match[1] as string
// A round over 10,000 tasks answers after minutes: no header or body timeout on the owner socket.
const desk = new Pool('http://localhost', { socketPath, connections: CONCURRENCY, headersTimeout: 0, bodyTimeout: 0 })

async function call(pool: Pool, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const r = await pool.request({
    method: method as 'GET', path, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await r.body.text()
  return { status: r.statusCode, body: text === '' ? undefined : JSON.parse(text) }
}
const cloudCall = (method: string, path: string, body?: unknown) => call(cloudPool, method, path, body, { authorization: `Bearer ${token}` })

async function parallel(n: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) await one(next++)
  }))
}

async function createLocal(prefix: string, n: number): Promise<void> {
  await parallel(n, async (i) => {
    const r = await call(desk, 'POST', '/v1/projects/items', { idempotency_key: randomUUID(), title: `${prefix} ${i}` })
    if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`)
  })
}

const status = async () => (await call(desk, 'GET', '/v1/portal/connection')).body
async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 1_800_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}
const cloudCount = async () => {
  // The newest page's size is enough to see progress; totals are counted at the end.
  let n = 0
  let cursor = ''
  for (;;) {
    const r = await cloudCall('GET', `/v1/workspaces/${ws}/tasks?limit=100${cursor}`)
    n += r.body.items.length
    if (r.body.next_cursor === null) return n
    cursor = `&cursor=${encodeURIComponent(r.body.next_cursor)}`
  }
}
const converged = async () => {
  const s = await status()
  return s.state === 'connected' && s.pending_operations === 0 && s.conflicts === 0
}
/** Rounds back to back (what the timer does, without its wait), until converged. */
const syncUntilConverged = async () => {
  for (;;) {
    const r = (await call(desk, 'POST', '/v1/portal/sync')).body
    if (r.state === 'connected' && await converged()) return
  }
}

const report: Record<string, unknown> = { load_average: loadavg().map((x) => Math.round(x * 100) / 100), round_tasks: ROUND, push_tasks: PUSH, kill_tasks: KILL_BATCH, pull_tasks: PULL }

/** CPU seconds a child process (all its threads) has used, from /proc. */
function cpuOf(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/**
 * The raw baseline, in this run: the same number of task rows inserted straight
 * into an embedded PostgreSQL (PGlite, as both sides use), one statement each
 * in one transaction, no HTTP and no project logic.
 */
async function rawBaseline(n: number, k: number): Promise<{ s: number; cpu_ms_per_row: number }> {
  const db = await openPglite(join(base, `raw${k}`))
  await db.query('CREATE TABLE raw_tasks (id uuid PRIMARY KEY, workspace_id uuid NOT NULL, number integer NOT NULL, title text NOT NULL, doc jsonb NOT NULL)')
  const wsId = randomUUID()
  const cpu0 = process.cpuUsage()
  const t = Date.now()
  await db.transaction(async (tx) => {
    for (let i = 0; i < n; i++) {
      const id = randomUUID()
      await tx.query('INSERT INTO raw_tasks VALUES ($1, $2, $3, $4, $5)', [id, wsId, i + 1, `round ${i}`, JSON.stringify({ id, title: `round ${i}`, number: i + 1 })])
    }
  })
  const s = (Date.now() - t) / 1000
  const used = process.cpuUsage(cpu0)
  await db.close()
  return { s, cpu_ms_per_row: (used.user + used.system) / 1000 / n }
}

// 0. One round of ROUND tasks made on a connected desktop: round time and CPU per task on each side.
const c = await call(desk, 'POST', '/v1/portal/connection', { url: cloudUrl, token })
if (c.status !== 200) throw new Error(`connect: ${JSON.stringify(c.body)}`)
await syncUntilConverged()
// The first round runs in processes that just started (their first tasks: V8 still optimizing
// the hot JavaScript and PGlite's WebAssembly, counted in the process CPU); the next ones show
// what a task costs in a running service. Each is printed; the README says which is which.
const rounds: unknown[] = []
for (let k = 1; ROUND > 0 && k <= ROUNDS; k++) {
  await createLocal(`round${k}`, ROUND)
  const raw = await rawBaseline(ROUND, k)
  const cloudCpu0 = cpuOf(cloud)
  const deskCpu0 = cpuOf(desktopStart.child)
  const r0 = Date.now()
  const r = (await call(desk, 'POST', '/v1/portal/sync')).body
  const roundS = (Date.now() - r0) / 1000
  const cloudMs = (cpuOf(cloud) - cloudCpu0) * 1000 / ROUND
  const deskMs = (cpuOf(desktopStart.child) - deskCpu0) * 1000 / ROUND
  if (r.state !== 'connected' || r.pushed < ROUND) throw new Error(`round ${k}: ${JSON.stringify(r)}`)
  rounds.push({
    result: r, round_s: roundS, cpu_ms_per_task: { cloud: cloudMs, desktop: deskMs },
    raw_baseline: raw, round_vs_raw: Math.round((roundS / raw.s) * 10) / 10,
    cpu_vs_raw: { cloud: Math.round((cloudMs / raw.cpu_ms_per_row) * 10) / 10, desktop: Math.round((deskMs / raw.cpu_ms_per_row) * 10) / 10 },
  })
  process.stdout.write(`round ${k} of ${ROUND} tasks${k === 1 ? ' (processes just started)' : ''}: ${roundS.toFixed(2)} s; CPU per task: cloud ${cloudMs.toFixed(2)} ms, desktop ${deskMs.toFixed(2)} ms; `
    + `raw baseline ${raw.s.toFixed(2)} s, ${raw.cpu_ms_per_row.toFixed(3)} ms per row (round ${(roundS / raw.s).toFixed(1)}x); load ${loadavg()[0]?.toFixed(2)}\n`)
}
report.rounds = rounds
if (PROFILE_DIR !== undefined) {
  await Promise.all([cloud, desktopStart.child].map((ch) => new Promise((r) => { ch.once('exit', r); ch.kill('SIGTERM') })))
  process.stdout.write(`profiles in ${PROFILE_DIR}\n`)
  process.exit(0)
}

// 1. Push: offline tasks (disconnected), then connect again (which starts a round) and rounds until nothing is pending.
await call(desk, 'DELETE', '/v1/portal/connection')
let t0 = Date.now()
await createLocal('offline', PUSH)
report.local_create_s = (Date.now() - t0) / 1000
t0 = Date.now()
const again = await call(desk, 'POST', '/v1/portal/connection', { url: cloudUrl, token })
if (again.status !== 200) throw new Error(`connect: ${JSON.stringify(again.body)}`)
await syncUntilConverged()
const pushS = (Date.now() - t0) / 1000
report.push_s = pushS
report.push_tasks_per_s = Math.round(PUSH / pushS)

// 2. Kill the cloud in the middle of a sync, restart it, time the convergence.
await createLocal('while connected', KILL_BATCH)
const before = await cloudCount()
void call(desk, 'POST', '/v1/portal/sync')
await until('some progress', async () => (await cloudCount()) >= before + Math.min(200, KILL_BATCH / 4))
cloud.kill('SIGKILL')
await new Promise((r) => cloud.once('exit', r))
const killedAt = Date.now()
report.pending_at_kill = (await status()).pending_operations
cloud = (await start(['serve'], cloudEnv, /on (http:\/\/\S+)/)).child
const upAt = Date.now()
report.cloud_restart_s = (upAt - killedAt) / 1000
await syncUntilConverged()
report.convergence_after_restart_s = (Date.now() - upAt) / 1000
report.convergence_after_kill_s = (Date.now() - killedAt) / 1000

// 3. Pull: tasks made on the portal.
await parallel(PULL, async (i) => {
  const r = await cloudCall('POST', `/v1/workspaces/${ws}/tasks`, { idempotency_key: randomUUID(), title: `portal ${i}` })
  if (r.status !== 201) throw new Error(`cloud create: ${r.status}`)
})
t0 = Date.now()
const round = (await call(desk, 'POST', '/v1/portal/sync')).body
const pullS = (Date.now() - t0) / 1000
report.pull_round = round
report.pull_s = pullS
report.pull_tasks_per_s = Math.round(round.pulled / pullS)
// An idle round (nothing changed): the cost of staying in sync.
t0 = Date.now()
await call(desk, 'POST', '/v1/portal/sync')
report.idle_round_ms = Date.now() - t0

// Exactly once everywhere.
const total = ROUND + PUSH + KILL_BATCH + PULL
const onCloud = await cloudCount()
let local = 0
let numbered = 0
let cursor = ''
for (;;) {
  const r = await call(desk, 'GET', `/v1/projects/items?item_type=task&limit=100${cursor}`)
  local += r.body.items.length
  numbered += r.body.items.filter((x: { number: number | null }) => x.number !== null).length
  if (r.body.next_cursor === null) break
  cursor = `&cursor=${encodeURIComponent(r.body.next_cursor)}`
}
report.check = { expected: total, cloud: onCloud, desktop: local, desktop_numbered: numbered, ok: onCloud === total && local === total && numbered === total }
process.stdout.write(JSON.stringify(report, null, 2) + '\n')
await desk.close()
await cloudPool.close()
cleanup()
process.exit((report.check as { ok: boolean }).ok ? 0 : 1)
