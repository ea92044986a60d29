// Idempotency records are durable: a replay after a restart, or after the
// server was killed with SIGKILL, returns the original result; on PGlite and on
// a PostgreSQL server.
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestLookout } from '../../helpers/lookout.ts'
import { postgresAvailable, startTestPostgres } from '../../helpers/postgres.ts'
import { key, settle } from './project-helpers.ts'

t.test('PGlite: a replay after a restart answers 200 with the original body', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-proj-restart-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const body = { idempotency_key: key(), title: 'survives restarts', assignee: 3 }
  let lk = await startTestLookout({ dataDir })
  await settle(lk)
  const P = `/v1/workspaces/${lk.workspaceId}`
  const first = await lk.req('POST', `${P}/tasks`, body)
  t.equal(first.status, 201)
  await lk.stop()
  lk = await startTestLookout({ dataDir })
  t.teardown(() => lk.stop())
  await settle(lk)
  const replay = await lk.req('POST', `${P}/tasks`, body)
  t.equal(replay.status, 200)
  t.same(replay.body, first.body)
  t.equal((await lk.req('POST', `${P}/tasks`, { ...body, title: 'changed' })).status, 409)
  const next = await lk.req('POST', `${P}/tasks`, { idempotency_key: key(), title: 'after restart' })
  t.equal(next.body.number, first.body.number + 1, 'numbering continues')
})

t.test('PostgreSQL: a replay through a new server process answers 200 with the original body', { skip: postgresAvailable() ? false : 'PostgreSQL binaries not installed' }, async (t) => {
  const pg = await startTestPostgres()
  t.teardown(() => pg.stop())
  const body = { idempotency_key: key(), title: 'on the server' }
  const a = await startTestLookout({ env: { DATABASE_URL: pg.url } })
  await settle(a)
  const P = `/v1/workspaces/${a.workspaceId}`
  const first = await a.req('POST', `${P}/tasks`, body)
  t.equal(first.status, 201)
  await a.stop()
  const b = await startTestLookout({ env: { DATABASE_URL: pg.url } })
  await settle(b)
  t.equal(b.workspaceId, a.workspaceId)
  const replay = await b.req('POST', `${P}/tasks`, body)
  t.equal(replay.status, 200)
  t.same(replay.body, first.body)
  await b.stop()
})

t.test('PGlite: after kill -9 the acknowledged creation is there and its replay returns it', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-proj-kill-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  // Load shedding off, as in every test server: start-up on a loaded machine must not shed these requests.
  const env = { ...process.env, LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '1', LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0' }
  const cli = (args: string[]) => new Promise<string>((resolve, reject) => {
    const p = spawn(process.execPath, ['deploy/lookout.ts', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    p.stdout.on('data', (d) => (out += d))
    p.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`lookout ${args.join(' ')} exited ${code}`))))
  })
  const serve = () => {
    const server = spawn(process.execPath, ['deploy/lookout.ts', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    const url = new Promise<string>((resolve, reject) => {
      let out = ''
      server.stdout.on('data', (d) => {
        out += d
        const m = /on (http:\/\/\S+)/.exec(out)
        if (m) resolve(m[1] as string)
      })
      server.on('exit', (c) => reject(new Error(`server exited ${c}`)))
    })
    return { server, url }
  }
  const ws = await cli(['workspace', 'create', 'crash'])
  const token = await cli(['token', 'create', '--workspace', ws, '--scopes', 'project:read,project:write'])
  const h = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const send = async (url: string, body: unknown) => {
    for (;;) {
      const r = await fetch(`${url}/v1/workspaces/${ws}/tasks`, { method: 'POST', headers: h, body: JSON.stringify(body) })
      // Right after start the overload guard may still hold the start-up's event-loop delay.
      if (r.status !== 503) return { status: r.status, text: await r.text() }
      await new Promise((res) => setTimeout(res, 200))
    }
  }
  const kill = async (s: ChildProcess) => {
    const exited = new Promise((r) => s.on('exit', r))
    s.kill('SIGKILL')
    await exited
  }
  const one = serve()
  t.teardown(() => one.server.kill('SIGKILL'))
  const url1 = await one.url
  const body = { idempotency_key: key(), title: 'acknowledged before the crash' }
  const first = await send(url1, body)
  t.equal(first.status, 201)
  await kill(one.server)
  const two = serve()
  t.teardown(() => two.server.kill('SIGKILL'))
  const url2 = await two.url
  const replay = await send(url2, body)
  t.equal(replay.status, 200)
  t.equal(replay.text, first.text, 'byte for byte the original body')
  const next = await send(url2, { idempotency_key: key(), title: 'after the crash' })
  t.equal(JSON.parse(next.text).number, JSON.parse(first.text).number + 1)
  const exited = new Promise((r) => two.server.on('exit', r))
  two.server.kill('SIGTERM')
  await exited
})
