// Readiness: /v1/ready reports each dependency and answers 503 when one is
// down; an app refuses traffic (503 + Retry-After) until every dependency has
// been ready once; `lookout status` prints the same over the owner socket or
// HTTP. NATS is a real nats-server on a fixed port, stopped and restarted.
import t from 'tap'
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { DecoderPool } from '../../ingest/index.ts'
import { buildApp, readinessChecks } from '../../api/index.ts'
import { findNatsServer, loadConfig } from '../../deploy/index.ts'
import { readStatus } from '../../deploy/status.ts'
import { startTestLookout } from '../helpers/lookout.ts'
import { freePort } from '../helpers/servers.ts'
import { Scrape } from './prometheus.ts'

const natsDir = mkdtempSync(join(tmpdir(), 'lookout-ready-nats-'))
const natsPort = await freePort()
writeFileSync(join(natsDir, 'nats.conf'), `listen: "127.0.0.1:${natsPort}"\nmax_payload: 8MB\njetstream { store_dir: ${JSON.stringify(join(natsDir, 'js'))} }\n`)
let nats: ChildProcess | null = null

async function startNats(): Promise<void> {
  const child = spawn(findNatsServer(), ['-c', join(natsDir, 'nats.conf')], { stdio: 'ignore' })
  nats = child
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${natsPort}`).then(() => true, (err: { cause?: { code?: string } }) => err.cause?.code !== 'ECONNREFUSED')
    if (up) return
    if (child.exitCode !== null) throw new Error('nats-server exited')
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('nats-server did not listen')
}

async function stopNats(): Promise<void> {
  const child = nats
  nats = null
  if (child === null || child.exitCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}

await startNats()
const lk = await startTestLookout({ env: { NATS_URL: `nats://127.0.0.1:${natsPort}` } })
t.teardown(async () => {
  await lk.stop()
  await stopNats()
  rmSync(natsDir, { recursive: true, force: true })
})

const run = promisify(execFile)
const cli = new URL('../../deploy/lookout.ts', import.meta.url).pathname
async function status(env: Record<string, string>): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, [cli, 'status'], { env: { ...process.env, ...env }, timeout: 60_000 })
    return { code: 0, out: r.stdout }
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string }
    return { code: e.code ?? -1, out: (e.stdout ?? '') + (e.stderr ?? '') }
  }
}
const port = new URL(lk.url).port
const emptyDir = mkdtempSync(join(tmpdir(), 'lookout-status-'))
t.teardown(() => rmSync(emptyDir, { recursive: true, force: true }))

const waitFor = async (what: string, ok: () => Promise<boolean>, ms = 30_000) => {
  const deadline = Date.now() + ms
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

t.test('ready: every dependency named, without a credential', async (t) => {
  const r = await lk.req('GET', '/v1/ready', undefined, { authorization: '' })
  t.equal(r.status, 200)
  t.same(r.body, { status: 'ready', dependencies: { nats: 'ready', clickhouse: 'ready', postgresql: 'ready', workers: 'ready' } })
  t.same((await lk.req('GET', '/v1/health', undefined, { authorization: '' })).body, { status: 'ok', version: '0.1.0' })
})

t.test('lookout status over the owner socket and over HTTP', async (t) => {
  const viaSocket = await status({ LOOKOUT_DATA_DIR: lk.dataDir })
  t.equal(viaSocket.code, 0, viaSocket.out)
  t.match(viaSocket.out, /^lookout 0\.1\.0 \(unix:.*admin\.sock\): ready\n/)
  for (const d of ['nats', 'clickhouse', 'postgresql', 'workers']) t.match(viaSocket.out, new RegExp(`\\n  ${d} +ready\\n`))
  const viaHttp = await status({ LOOKOUT_DATA_DIR: emptyDir, LOOKOUT_HOST: '0.0.0.0', LOOKOUT_PORT: port })
  t.equal(viaHttp.code, 0, viaHttp.out)
  t.match(viaHttp.out, new RegExp(`^lookout 0\\.1\\.0 \\(http://127\\.0\\.0\\.1:${port}\\): ready\\n`))
  // The same code in process (a CLI start costs seconds): nobody listening.
  await t.rejects(readStatus(loadConfig({ LOOKOUT_DATA_DIR: emptyDir, LOOKOUT_PORT: String(await freePort()) })), { code: 'LOOKOUT_SERVER_UNREACHABLE', message: /no Lookout server answers/ })
})

t.test('NATS down: 503 with the dependency named; an app started now refuses traffic until it is back', async (t) => {
  await stopNats()
  await waitFor('readiness to see NATS gone', async () => (await lk.req('GET', '/v1/ready')).status === 503)
  const r = await lk.req('GET', '/v1/ready', undefined, { authorization: '' })
  t.equal(r.status, 503)
  t.equal(r.headers.get('retry-after'), '1')
  t.same(r.body, { status: 'unavailable', dependencies: { nats: 'unavailable', clickhouse: 'ready', postgresql: 'ready', workers: 'ready' } })
  t.equal((await lk.req('GET', '/v1/health')).status, 200, 'liveness is not readiness')

  const s = await status({ LOOKOUT_DATA_DIR: lk.dataDir })
  t.equal(s.code, 1, 'status exits 1 when not ready')
  t.match(s.out, /: unavailable\n/)
  t.match(s.out, /\n  nats +unavailable\n/)
  t.match(s.out, /\n  postgresql +ready\n/)

  const scrape = new Scrape(await lk.lookout.metrics.text())
  t.equal(scrape.value('lookout_dependency_ready', { dependency: 'nats' }), 0)
  t.equal(scrape.value('lookout_jetstream_up'), 0, 'stream state unreadable')
  t.equal(scrape.value('lookout_ready'), 1, 'the gate, once open, stays open')
  const rid = await lk.resource('ready-still-served')
  t.equal((await lk.req('GET', `/v1/workspaces/${lk.workspaceId}/resources/${rid}`)).status, 200, 'routes that need no NATS keep working')

  // A fresh app on the same components, built while NATS is down.
  const pool = new DecoderPool({ threads: 1 })
  t.teardown(() => pool.close())
  await pool.warm() // as the api role does at start
  const app = await buildApp({
    db: lk.lookout.db, ingest: lk.lookout.ingest as never, store: lk.lookout.store, maxEventLoopDelayMs: 0,
    readiness: readinessChecks({ broker: lk.lookout.broker, store: lk.lookout.store, db: lk.lookout.db, pool }),
  })
  t.teardown(() => app.close())
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  const get = (path: string, auth = true) => fetch(base + path, { headers: auth ? { authorization: `Bearer ${lk.token}` } : {} })
  const refused = await get(`/v1/workspaces/${lk.workspaceId}/resources/${rid}`)
  t.equal(refused.status, 503)
  t.equal(refused.headers.get('retry-after'), '1')
  const body = await refused.json() as { detail: { type: string; msg: string }[] }
  t.equal(body.detail[0]?.type, 'LOOKOUT_NOT_READY')
  t.match(body.detail[0]?.msg, /nats/)
  const unauth = await get(`/v1/workspaces/${lk.workspaceId}/resources/${rid}`, false)
  t.equal(unauth.status, 503, 'refused before authentication')
  const legacy = await fetch(base + '/v1/logs', { method: 'POST', headers: { authorization: `Bearer ${lk.token}`, 'content-type': 'application/json' }, body: '{}' })
  t.equal(legacy.status, 503)
  t.equal((await legacy.json() as { error: { code: string } }).error.code, 'LOOKOUT_NOT_READY', 'in the desktop contract\'s shape')
  t.equal((await get('/v1/health', false)).status, 200, 'health is served')
  t.equal((await get('/v1/ready', false)).status, 503, 'readiness is served')
  t.equal((await get('/v1/openapi.json', false)).status, 200, 'the contract is served')

  await startNats()
  await waitFor('the gate to open', async () => (await get(`/v1/workspaces/${lk.workspaceId}/resources/${rid}`)).status === 200)
  t.equal((await get('/v1/ready', false)).status, 200)
  t.equal((await lk.req('GET', '/v1/ready')).status, 200, 'the server sees NATS back')
  const back = await readStatus(loadConfig({ LOOKOUT_DATA_DIR: lk.dataDir }))
  t.equal(back.status, 'ready')
  t.equal(back.dependencies.nats, 'ready')
})

t.test('ingest works again after NATS came back', async (t) => {
  const rid = await lk.resource('ready-after')
  t.equal((await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`, { events: [{ message: 'after the outage' }] })).status, 200)
  t.equal((await lk.waitRows(rid, 1)).length, 1)
})
