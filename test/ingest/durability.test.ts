// Durability of the ingest path: acknowledged means stored, exactly once,
// through a stopped loader, a ClickHouse table outage, and a kill -9.
import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Loader } from '../../ingest/index.ts'
import { until } from '../helpers/until.ts'
import { startTestLookout } from '../helpers/lookout.ts'

const batch = (tag: string, n: number) => ({ events: Array.from({ length: n }, (_, i) => ({ message: `${tag} line ${i}`, attributes: { i } })) })

t.test('with the loader stopped, ingestion keeps acknowledging and everything loads after', async (t) => {
  const lk = await startTestLookout({ roles: ['api'] })
  t.teardown(() => lk.stop())
  const rid = await lk.resource('no-loader')
  const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  for (let b = 0; b < 5; b++) t.equal((await lk.req('POST', path, batch(`b${b}`, 200))).status, 200)
  const backlog = await lk.lookout.broker.backlog()
  t.equal(backlog.pending, 5, 'five messages wait in JetStream')
  t.equal((await lk.rows(rid)).length, 0, 'nothing in ClickHouse yet')
  const loader = new Loader(lk.lookout.broker, lk.lookout.store, { flushMs: 100 })
  await loader.start()
  t.teardown(() => loader.stop())
  const rows = await lk.waitRows(rid, 1000)
  t.equal(rows.length, 1000, 'all 1000 rows loaded')
  t.equal(new Set(rows.map((r) => r.event_id)).size, 1000, 'no duplicates')
})

t.test('a backlog keeps a batch open past its flush time with pulls nats.js accepts', async (t) => {
  // Past the flush time, a batch under minRows keeps pulling while messages wait; every
  // pull must be one nats.js accepts (at least 1 s). A refused pull there once kept the
  // batch open forever while an insert was retried (clickhouse-outage.fault.ts caught it).
  const lk = await startTestLookout({ roles: ['api'] })
  t.teardown(() => lk.stop())
  const rid = await lk.resource('backlog')
  const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  const big = (tag: string) => ({ events: Array.from({ length: 1000 }, (_, i) => ({ message: `${tag}-${i} ` + 'x'.repeat(4000) })) })
  // 16 MB in the stream: more than one pull's 9 MiB, far fewer rows than minRows (20,000).
  for (let b = 0; b < 4; b++) t.equal((await lk.req('POST', path, big(`k${b}`))).status, 200)
  const loader = new Loader(lk.lookout.broker, lk.lookout.store, { flushMs: 100 })
  await loader.start()
  t.teardown(() => loader.stop())
  const rows = await lk.waitRows(rid, 4000, 60_000)
  t.equal(rows.length, 4000, 'every row loaded')
  t.equal(loader.stats.fetchErrors, 0, 'no pull refused: ' + loader.lastError)
})

t.test('a ClickHouse table outage is retried until it is back, nothing lost', async (t) => {
  const lk = await startTestLookout()
  t.teardown(() => lk.stop())
  const rid = await lk.resource('outage')
  const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  const db = lk.lookout.store.database
  await lk.lookout.store.command(`DETACH TABLE ${db}.logs`)
  for (let b = 0; b < 3; b++) t.equal((await lk.req('POST', path, batch(`o${b}`, 100))).status, 200, 'acknowledged during the outage')
  const errors = await until('the loader to meet the outage', async () => lk.lookout.loader?.stats.insertErrors ?? 0, (n) => n > 0)
  t.ok(errors > 0, 'the loader saw the outage and retried')
  await lk.lookout.store.command(`ATTACH TABLE ${db}.logs`)
  const rows = await lk.waitRows(rid, 300, 40_000)
  t.equal(rows.length, 300)
  t.equal(new Set(rows.map((r) => r.event_id)).size, 300)
})

t.test('a server killed with SIGKILL after acknowledging keeps every acknowledged event, once', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-kill-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  // Load shedding off (as in every test server): a loaded CI machine delays the
  // event loop while the server starts, and a shed request is not what this tests.
  const env = { ...process.env, LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '1', LOOKOUT_LOADER_FLUSH_MS: '2000', LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0' }
  const cli = (args: string[]) => new Promise<string>((resolve, reject) => {
    const p = spawn(process.execPath, ['deploy/lookout.ts', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    p.stdout.on('data', (d) => (out += d))
    p.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`lookout ${args.join(' ')} exited ${code}`))))
  })
  const ws = await cli(['workspace', 'create', 'crash'])
  const token = await cli(['token', 'create', '--workspace', ws, '--scopes', 'resources:write,logs:write'])
  const server = spawn(process.execPath, ['deploy/lookout.ts', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    server.stdout.on('data', (d) => {
      out += d
      const m = /on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1] as string)
    })
    server.on('exit', (c) => reject(new Error(`server exited ${c}`)))
  })
  const h = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const res = await fetch(`${url}/v1/workspaces/${ws}/resources`, { method: 'POST', headers: h, body: JSON.stringify({ external_id: 'k', name: 'k' }) })
  t.equal(res.status, 201, 'resource registered')
  const rid = ((await res.json()) as { id: string }).id
  let acked = 0
  const refused: string[] = []
  const send = async (b: number) => {
    const r = await fetch(`${url}/v1/workspaces/${ws}/resources/${rid}/logs`, { method: 'POST', headers: h, body: JSON.stringify(batch(`k${b}`, 250)) })
    if (r.status === 200) acked += ((await r.json()) as { accepted: number }).accepted
    else refused.push(`${r.status} ${await r.text()}`)
  }
  for (let b = 0; b < 24; b += 4) await Promise.all([send(b), send(b + 1), send(b + 2), send(b + 3)])
  const exited = new Promise((r) => server.on('exit', r))
  server.kill('SIGKILL')
  await exited
  t.equal(acked, 6000, `every request was acknowledged before the kill; refused: ${JSON.stringify(refused)}`)

  // Restart in this process on the same directory: the stale nats-server and lock are taken over.
  const lk = await startTestLookout({ dataDir })
  t.teardown(() => lk.stop())
  const rows = await lk.waitRows(rid, acked, 60_000)
  await new Promise((r) => setTimeout(r, 1000))
  const final = await lk.rows(rid)
  t.equal(final.length, acked, 'every acknowledged event is stored')
  t.equal(new Set(final.map((r) => r.event_id)).size, acked, 'exactly once')
  t.ok(rows.length > 0)
})
