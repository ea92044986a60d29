// Forwarding to a cloud workspace: a real cloud Lookout (`lookout serve` in a
// child process) receives copies of the logs the desktop accepted. The queue
// is bounded: when full, copies are dropped (counted) while local ingestion
// goes on; forwarding resumes and catches up when the target answers.
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { callAdmin } from '../../deploy/index.ts'
import { freePort, httpReq, startTestDesktop, type Res } from './desktop-helpers.ts'

const QUEUE_BYTES = 32 * 1024

// The cloud keeps one day of logs, the desktop seven: an older event is accepted here and refused there.
const cloudDir = mkdtempSync(join(tmpdir(), 'lookout-cloud-'))
const cloudEnv = {
  ...process.env, LOOKOUT_DATA_DIR: cloudDir, LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '1', LOOKOUT_LOADER_FLUSH_MS: '100',
  LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0', LOOKOUT_RETENTION_DAYS: '1',
}
const cloud: ChildProcess = spawn(process.execPath, ['deploy/lookout.ts', 'serve'], { env: cloudEnv, stdio: ['ignore', 'pipe', 'pipe'] })
t.teardown(async () => {
  if (cloud.exitCode === null) {
    const exited = new Promise((r) => cloud.once('exit', r))
    cloud.kill('SIGTERM')
    await exited
  }
  rmSync(cloudDir, { recursive: true, force: true })
})
const cloudUrl = await new Promise<string>((resolve, reject) => {
  let out = ''
  cloud.stdout?.on('data', (d) => {
    out += d
    const m = /on (http:\/\/\S+)/.exec(out)
    if (m) resolve(m[1] as string)
  })
  cloud.on('exit', (c) => reject(new Error(`the cloud exited ${c}: ${out}`)))
})
const cloudWs = (await callAdmin(cloudDir, 'POST', '/admin/workspaces', { name: 'cloud' }) as { id: string }).id
const cloudToken = (await callAdmin(cloudDir, 'POST', '/admin/tokens', {
  workspace: cloudWs, scopes: ['resources:write', 'logs:write', 'logs:read'], resources: 'all', name: 'desktop forwarding',
}) as { token: string }).token

const td = await startTestDesktop({ forwardQueueBytes: QUEUE_BYTES, forwarder: { retryBaseMs: 100, maxRetryMs: 400, idleMs: 200 } })
t.teardown(() => td.stop())
const { owner } = td
const rid = await td.resource('laptop-app')

async function patch(body: Record<string, unknown>): Promise<Res> {
  const rev = (await owner('GET', '/v1/settings')).body.revision
  const r = await owner('PATCH', '/v1/settings', { revision: rev, ...body })
  if (r.status !== 200) throw new Error(`settings: ${r.status} ${JSON.stringify(r.body)}`)
  return r
}

const status = async () => (await owner('GET', '/v1/desktop')).body.forwarding

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await read()
    if (ok(v)) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

let seq = 0
/** One legacy batch of n events on the owner socket; returns their messages. */
async function ingest(n: number, at = Date.now()): Promise<string[]> {
  const events = Array.from({ length: n }, () => {
    seq++
    return { id: `ev-${seq}`, timestamp: new Date(at - seq).toISOString(), severity: 'error', message: `forward me ${seq}`, attributes: { n: seq } }
  })
  const r = await owner('POST', '/v1/logs', { resource_id: rid, events })
  if (r.status !== 200) throw new Error(`ingest: ${r.status} ${JSON.stringify(r.body)}`)
  return events.map((e) => e.message)
}

const localCount = async () => {
  const store = td.desktop.lookout.store
  return Number((await store.query<{ n: string }>(`SELECT count() AS n FROM ${store.database}.logs WHERE resource_id = {rid:UUID}`, { rid })).rows[0]?.n)
}

async function cloudMessages(): Promise<string[]> {
  const auth = { authorization: `Bearer ${cloudToken}` }
  const found = await httpReq(cloudUrl, 'GET', `/v1/workspaces/${cloudWs}/resources?external_id=laptop-app`, undefined, auth)
  const cloudRid = found.body.items?.[0]?.id
  if (cloudRid === undefined) return []
  const out: string[] = []
  let cursor: string | null = null
  do {
    const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`
    const page = await httpReq(cloudUrl, 'GET', `/v1/workspaces/${cloudWs}/resources/${cloudRid}/logs?limit=200${q}`, undefined, auth)
    out.push(...page.body.events.map((e: { message: string }) => e.message))
    cursor = page.body.next_cursor
  } while (cursor !== null)
  return out
}

t.test('nothing is queued while forwarding is off', async (t) => {
  await ingest(3)
  t.match(await status(), { enabled: false, queue: { batches: 0, bytes: 0, max_bytes: QUEUE_BYTES } })
  t.equal(await until('local rows', localCount, (n) => n >= 3), 3, 'stored locally')
})

let queued: string[] = []

t.test('an unreachable target: the queue fills to its bound, copies are dropped, local ingestion goes on', async (t) => {
  const dead = await freePort()
  await patch({ forward_url: `http://127.0.0.1:${dead}`, forward_workspace_id: cloudWs, forward_token: cloudToken, forward_enabled: true })
  const before = await localCount()
  const sent: string[] = []
  for (let i = 0; i < 12; i++) sent.push(...await ingest(20))
  const s = await until('a connection error', status, (v) => v.last_error !== null)
  t.match(s.last_error, /cannot reach|ECONNREFUSED/, 'the error is kept for the owner')
  t.ok(s.queue.bytes <= QUEUE_BYTES, `queued ${s.queue.bytes} bytes, within ${QUEUE_BYTES}`)
  t.ok(s.queue.batches > 0 && s.queue.batches < 12, `${s.queue.batches} of 12 batches queued`)
  t.ok(s.dropped.batches > 0, `${s.dropped.batches} batches dropped when full`)
  t.equal(s.dropped.events, 20 * s.dropped.batches, 'dropped events are counted')
  t.equal(s.queue.batches + s.dropped.batches, 12, 'every batch was either queued or dropped')
  t.equal(s.forwarded.batches, 0)
  t.equal(await until('local rows', localCount, (n) => n >= before + 240), before + 240, 'every event is stored locally')
  queued = sent.slice(0, s.queue.batches * 20)
})

t.test('a refused token keeps the batches; the right one delivers them in order; forwarding resumes', async (t) => {
  await patch({ forward_url: cloudUrl, forward_token: 'lkt_00000000000000000000000000000000_wrongwrongwrongwrongwrongwrongwrongwrongwro' })
  const refused = await until('a 401', status, (v) => /401/.test(v.last_error ?? ''))
  t.ok(refused.queue.batches > 0, 'still queued, not dropped')
  t.equal(refused.rejected.batches, 0, 'a configuration error never drops a batch')

  await patch({ forward_token: cloudToken })
  const drained = await until('the queue to drain', status, (v) => v.queue.batches === 0)
  t.equal(drained.queue.bytes, 0)
  t.equal(drained.forwarded.events, queued.length, 'what was queued was forwarded')
  t.not(drained.last_success_at, null)
  const got = await until('the cloud to store them', cloudMessages, (m) => m.length >= queued.length)
  t.same([...got].sort(), [...queued].sort(), 'the cloud holds exactly the queued copies')

  const later = await ingest(5)
  await until('the new batch', status, (v) => v.forwarded.events === queued.length + 5 && v.queue.batches === 0)
  const all = await until('the cloud to catch up', cloudMessages, (m) => m.length >= queued.length + 5)
  for (const m of later) t.ok(all.includes(m), `${m} forwarded after the queue had room again`)
})

t.test('a forwarded event keeps its time, severity, message and attributes', async (t) => {
  const auth = { authorization: `Bearer ${cloudToken}` }
  const found = await httpReq(cloudUrl, 'GET', `/v1/workspaces/${cloudWs}/resources?external_id=laptop-app`, undefined, auth)
  t.match(found.body.items[0], { external_id: 'laptop-app', name: 'laptop-app', kind: 'server' }, 'the cloud resource was registered by external_id')
  const msg = queued[0] as string
  const page = await httpReq(cloudUrl, 'GET', `/v1/workspaces/${cloudWs}/resources/${found.body.items[0].id}/logs?q=${encodeURIComponent(msg)}&limit=200`, undefined, auth)
  const local = await owner('GET', `/v1/logs?resource_id=${rid}&text=${encodeURIComponent(msg)}&limit=100`)
  const remote = page.body.events.find((e: { message: string }) => e.message === msg)
  const mine = local.body.events.find((e: { message: string }) => e.message === msg)
  t.ok(remote, 'found on the cloud')
  t.ok(mine, 'and here')
  t.equal(remote.timestamp, mine.timestamp, 'the same event time, to the nanosecond')
  t.equal(remote.severity, mine.severity)
  t.equal(remote.attributes.n, mine.attributes.n)
})

t.test('a batch the cloud refuses as invalid is dropped as rejected and does not block the queue', async (t) => {
  const before = await status()
  await ingest(2, Date.now() - 3 * 86_400_000) // inside the desktop's 7 days, outside the cloud's 1
  const fresh = await ingest(2)
  const s = await until('the rejection and the next batch', status, (v) => v.rejected.batches === before.rejected.batches + 1 && v.queue.batches === 0)
  t.equal(s.rejected.events, before.rejected.events + 2)
  t.match(s.last_error, /422/)
  const got = await until('the fresh batch', cloudMessages, (m) => fresh.every((x) => m.includes(x)))
  t.ok(fresh.every((x) => got.includes(x)), 'the batch after the refused one was forwarded')
})

t.test('turning forwarding off stops queueing copies', async (t) => {
  await patch({ forward_enabled: false })
  const before = await status()
  await ingest(4)
  const after = await status()
  t.equal(after.queue.batches, 0)
  t.equal(after.dropped.batches, before.dropped.batches, 'not dropped either: not copied at all')
  t.equal(after.enabled, false)
})
