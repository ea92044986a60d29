// `lookout serve` restarts its own process image once with the lean runtime
// settings (deploy/lean-runtime.ts), keeping its pid; the embedded PostgreSQL
// starts with the small shared_buffers of core/db/pglite-settings.ts.
import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENGINE_MALLOC_CONF, restartFlags, wantsBuffersInHeapLimit, wantsLeanRestart } from '../../deploy/lean-runtime.ts'
import { openPglite } from '../../core/index.ts'

t.test('which starts restart lean', async (t) => {
  t.ok(wantsLeanRestart(['serve'], {}, 'linux'), 'serve')
  t.ok(wantsLeanRestart(['desktop', '--data-dir', '/x'], {}, 'linux'), 'desktop')
  t.notOk(wantsLeanRestart(['status'], {}, 'linux'), 'a short command does not')
  t.notOk(wantsLeanRestart(['serve'], { LOOKOUT_LEAN_RUNTIME: '0' }, 'linux'), 'turned off')
  t.notOk(wantsLeanRestart(['serve'], { LOOKOUT_LEAN_RUNTIME: 'applied' }, 'linux'), 'the restarted process does not restart again')
  t.notOk(wantsLeanRestart(['serve'], {}, 'darwin'), 'Linux only (glibc)')
})

t.test('the restarted process\'s node flags: ours added, what was given by hand kept', async (t) => {
  const ours = ['--wasm-wrapper-tiering-budget=2147483647', '--heap-growing-percent=50']
  t.same(restartFlags([]), ours, 'both of ours by default')
  t.same(restartFlags(['--inspect']), ['--inspect', ...ours], 'after the flags given')
  t.same(restartFlags(['--heap-growing-percent=0']), ['--heap-growing-percent=0', ours[0]], 'a value given by hand is kept')
  t.same(restartFlags(['--no-wasm-wrapper-tiering-budget']), ['--no-wasm-wrapper-tiering-budget', ours[1]], 'a flag turned off by hand stays off')
  t.same(restartFlags(ours), ours, 'a restarted process\'s own flags are not doubled')
})

t.test('a started lean server counts buffers in V8\'s heap limit, unless told otherwise', async (t) => {
  const applied = { LOOKOUT_LEAN_RUNTIME: 'applied' }
  t.ok(wantsBuffersInHeapLimit(applied, []), 'restarted lean')
  t.notOk(wantsBuffersInHeapLimit({}, []), 'not restarted (LOOKOUT_LEAN_RUNTIME=0, or no execve): V8\'s default')
  t.notOk(wantsBuffersInHeapLimit(applied, ['--no-external-memory-accounted-in-global-limit']), 'turned off by hand')
  t.notOk(wantsBuffersInHeapLimit(applied, ['--external-memory-accounted-in-global-limit']), 'given by hand: already on')
})

t.test('lookout serve runs lean under the pid it was started with', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-lean-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const env: NodeJS.ProcessEnv = { ...process.env, LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '1' }
  delete env.LOOKOUT_LEAN_RUNTIME
  delete env.MALLOC_ARENA_MAX
  delete env.MALLOC_MMAP_THRESHOLD_
  delete env.JE_MALLOC_CONF
  const child = spawn(process.execPath, ['deploy/lookout.ts', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  await new Promise<void>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      if (/lookout serving/.test(out)) resolve()
    })
    child.once('exit', (c) => reject(new Error(`serve exited ${c}: ${out}`)))
  })
  const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0')
  const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0')
  t.notOk(cmdline.includes('--liftoff-only'), 'PGlite keeps V8\'s optimizing tier')
  t.ok(cmdline.includes('--wasm-wrapper-tiering-budget=2147483647'), 'but not tiered-up wasm wrappers (nodejs/node#64500)')
  t.ok(cmdline.includes('--heap-growing-percent=50'), 'the heap limit grows by half of what is live')
  t.equal(cmdline.filter((a) => a === 'serve').length, 1, 'the same command, once')
  t.ok(environ.includes('MALLOC_ARENA_MAX=2'), 'two malloc arenas')
  t.ok(environ.includes('MALLOC_MMAP_THRESHOLD_=32768'), 'blocks from 32 KiB mapped, returned on free')
  t.ok(environ.includes(`JE_MALLOC_CONF=${ENGINE_MALLOC_CONF}`), 'the engine\'s allocator: one arena')
  t.ok(environ.includes('LOOKOUT_LEAN_RUNTIME=applied'), 'marked as restarted')
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)))
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'drains and exits 0 on SIGTERM')
})

t.test('the engine\'s allocator reads JE_MALLOC_CONF, and knows every key of ours', async (t) => {
  // abort_conf makes jemalloc abort at load on a key or value it does not know.
  const run = (conf: string) => spawnSync(process.execPath, ['--input-type=module', '-e', 'import { query } from "chdb"; process.stdout.write(query("SELECT 41 + 1", "CSV"))'], {
    env: { ...process.env, JE_MALLOC_CONF: `abort_conf:true,${conf}` },
    encoding: 'utf8',
  })
  const ours = run(ENGINE_MALLOC_CONF)
  t.equal(ours.status, 0, `chdb loads with ours: ${ours.stderr.slice(-300)}`)
  t.equal(ours.stdout.trim(), '42', 'and answers')
  t.not(run('no_such_key:1').status, 0, 'an unknown key aborts: the variable reaches libchdb\'s jemalloc')
})

t.test('the embedded PostgreSQL keeps 16 MB of shared buffers', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-pglite-buffers-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const db = await openPglite(join(dir, 'pg'))
  t.teardown(() => db.close())
  const r = await db.query<{ shared_buffers: string }>('SHOW shared_buffers')
  t.equal(r.rows[0]?.shared_buffers, '16MB')
})
