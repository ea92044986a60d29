// `lookout serve` as an operator runs it: the CLI administers it over the owner
// socket while it runs (and the store directly when it does not), and SIGTERM
// drains it: requests in flight are acknowledged and stored, a connection that
// never sent a byte does not hold the drain, the exit is 0.
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { connect } from 'node:net'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestLookout, tokenSecret } from '../helpers/lookout.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'lookout-serve-'))
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
const env = { ...process.env, LOOKOUT_TRACE_STOP: '1', LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '1', LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0' }

function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['deploy/lookout.ts', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    p.stdout.on('data', (d) => (out += d))
    p.stderr.on('data', (d) => (err += d))
    p.on('exit', (code) => resolve({ code, out: out.trim(), err }))
  })
}

function serve(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['deploy/lookout.ts', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stderr?.on('data', (d) => { if (String(d).startsWith('stop')) process.stderr.write(d) })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (d) => {
      out += d
      const m = /on (http:\/\/\S+)/.exec(out)
      if (m) resolve({ child, url: m[1] as string })
    })
    child.on('exit', (c) => reject(new Error(`serve exited ${c}: ${out}`)))
  })
}

t.test('the CLI works without a server (direct) and with one (owner socket)', async (t) => {
  const usage = await cli([])
  t.equal(usage.code, 2, 'no command: usage, exit 2')
  t.match(usage.out, /lookout serve/)
  t.equal((await cli(['frobnicate'])).code, 2, 'unknown command')
  const ws1 = await cli(['workspace', 'create', 'direct'])
  t.equal(ws1.code, 0)
  t.match(ws1.out, /^[0-9a-f-]{36}$/, 'prints the uuid')
  const { child, url } = await serve()
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  t.ok(existsSync(join(dataDir, 'admin.sock')), 'the owner socket exists')
  // No logs yet: the log engine is not loaded (ingest/store/embedded-store.ts), and the server is ready all the same.
  const chdbMapped = () => readFileSync(`/proc/${child.pid}/maps`, 'utf8').includes('libchdb')
  t.notOk(chdbMapped(), 'libchdb is not mapped while there are no logs')
  t.equal((await fetch(`${url}/v1/ready`)).status, 200, 'ready without the log engine')
  t.notOk(chdbMapped(), 'the readiness check did not start it')
  const ws2 = await cli(['workspace', 'create', 'via', 'socket'])
  t.equal(ws2.code, 0, 'workspace create while serving')
  const tok = await cli(['token', 'create', '--workspace', ws2.out, '--scopes', 'resources:write,logs:write', '--name', 'ci'])
  t.equal(tok.code, 0)
  t.match(tok.out, /^lkt_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/, 'the token, once, on its own line')
  const list = await cli(['token', 'list', '--workspace', ws2.out])
  t.equal(list.code, 0)
  t.notOk(list.out.includes(tokenSecret(tok.out)), 'token list never shows the secret')
  const id = (JSON.parse(list.out.split('\n')[0] as string) as { id: string }).id
  const h = { authorization: `Bearer ${tok.out}`, 'content-type': 'application/json' }
  const res = await fetch(`${url}/v1/workspaces/${ws2.out}/resources`, { method: 'POST', headers: h, body: JSON.stringify({ external_id: 'drain', name: 'drain' }) })
  t.equal(res.status, 201)
  const rid = ((await res.json()) as { id: string }).id
  const badSender = await cli(['token', 'create', '--workspace', ws2.out, '--scopes', 'logs:write', '--sender'])
  t.equal(badSender.code, 2, 'a sender token needs exactly one resource')

  // SIGTERM while requests are in flight: every 2xx is stored, and the exit is 0 within 15 s.
  let ok = 0
  let stop = false
  const senders = Array.from({ length: 4 }, async (_, k) => {
    for (let i = 0; !stop; i++) {
      try {
        const r = await fetch(`${url}/v1/workspaces/${ws2.out}/resources/${rid}/logs`, {
          method: 'POST', headers: h,
          body: JSON.stringify({ events: Array.from({ length: 200 }, (_, j) => ({ message: `drain ${k}-${i}-${j}` })) }),
        })
        if (r.status === 200) ok += 200
        else stop = true
      } catch {
        stop = true
      }
    }
  })
  // Until the senders are going (a loaded machine may take a while for the first answer), then a little more.
  for (let waited = 0; ok === 0 && waited < 30_000; waited += 100) await new Promise((r) => setTimeout(r, 100))
  // The first batch the loader stores starts the engine.
  for (let waited = 0; !chdbMapped() && waited < 30_000; waited += 100) await new Promise((r) => setTimeout(r, 100))
  t.ok(chdbMapped(), 'libchdb is loaded once logs arrive')
  await new Promise((r) => setTimeout(r, 500))
  // A connection that never sends a byte (a pooled client's spare one) must not hold the drain.
  const { port } = new URL(url)
  const silent = connect(Number(port), '127.0.0.1')
  silent.on('error', () => undefined)
  await new Promise<void>((resolve) => silent.once('connect', () => resolve()))
  t.teardown(() => silent.destroy())
  const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)))
  const t0 = Date.now()
  child.kill('SIGTERM')
  const code = await exited
  stop = true
  await Promise.all(senders)
  t.equal(code, 0, 'exit 0 after draining')
  t.ok(Date.now() - t0 < 15_000, 'within 15 s')
  t.ok(ok > 0, `${ok} events acknowledged`)
  t.notOk(existsSync(join(dataDir, 'lookout.pid')), 'the lock is released')

  const revoke = await cli(['token', 'revoke', id])
  t.equal(revoke.code, 0, 'revoke with no server: direct store')
  const lk = await startTestLookout({ dataDir })
  t.teardown(() => lk.stop())
  const rows = await lk.waitRows(rid, ok, 30_000)
  await new Promise((r) => setTimeout(r, 500))
  const final = await lk.rows(rid)
  t.equal(final.length, ok, 'every acknowledged event is stored, once')
  t.ok(rows.length > 0)
  const after = await lk.req('GET', `/v1/workspaces/${ws2.out}/resources`, undefined, { authorization: `Bearer ${tok.out}` })
  t.equal(after.status, 401, 'the revoked token no longer works')
})
