// The embedded default's memory settings reach the engines: chdb starts with
// caches sized for a per-user service, and the decoder pool keeps no worker
// while idle, starts them for a burst and lets them go after it.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DecoderPool, EMBEDDED_ENGINE_SETTINGS, engineArgs, openLogStore } from '../../ingest/internal.ts'
import { until } from '../helpers/until.ts'

t.test('the embedded engine starts with the per-user cache sizes and the memory ceiling given', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-engine-settings-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const store = openLogStore({ path: dir, engineMemory: { maxMemoryBytes: 512 * 1024 * 1024 } })
  t.teardown(() => store.close())
  const r = await store.query<{ name: string; value: string }>(
    'SELECT name, value FROM system.server_settings WHERE name IN ({names:Array(String)})',
    { names: [...Object.keys(EMBEDDED_ENGINE_SETTINGS), 'max_server_memory_usage'] })
  const got = Object.fromEntries(r.rows.map((x) => [x.name, Number(x.value)]))
  for (const [name, value] of Object.entries(EMBEDDED_ENGINE_SETTINGS)) t.equal(got[name], value, name)
  t.equal(got.max_server_memory_usage, 512 * 1024 * 1024, 'max_server_memory_usage')
  t.equal((await store.query<{ x: number }>('SELECT 1 AS x')).rows[0]?.x, 1, 'the store answers')
})

t.test('engineArgs: no ceiling by default, a negative one refused', async (t) => {
  t.notOk(engineArgs().some((a) => a.startsWith('--max_server_memory_usage')))
  t.ok(engineArgs({ maxMemoryBytes: 1 << 30 }).includes(`--max_server_memory_usage=${1 << 30}`))
  t.throws(() => engineArgs({ maxMemoryBytes: -1 }), { code: 'LOOKOUT_INVALID_OPTION' })
})

t.test('the decoder pool keeps no worker idle, starts them for a burst, lets them all go after it', async (t) => {
  const pool = new DecoderPool({ threads: 2, idleTimeoutMs: 500 })
  t.teardown(() => pool.close())
  t.equal(pool.threads, 0, 'no worker before any work')
  t.notOk(pool.usable, 'not usable before a worker ran')
  await pool.warm()
  t.ok(pool.usable, 'the warm-up ran in a worker')
  await until('the warm-up worker to exit', async () => pool.threads, (n) => n === 0)
  t.ok(pool.usable, 'still usable with no worker running')
  const events = Array.from({ length: 1000 }, (_, i) => ({ message: `burst ${i} ${'x'.repeat(200)}` }))
  const body = () => new TextEncoder().encode(JSON.stringify({ events }))
  const task = () => ({
    route: 'json' as const, format: 'json' as const, gzip: false, body: body(), workspaceId: '00000000-0000-4000-8000-000000000001',
    resourceId: '00000000-0000-4000-8000-000000000002', receivedNs: String(BigInt(Date.now()) * 1_000_000n),
    minTimeNs: 0n, maxTimeNs: BigInt(Date.now() + 86_400_000) * 1_000_000n, maxDecompressedBytes: 64 << 20, maxChunkBytes: 1 << 20,
    maxMessageBytes: 8 << 20, idempotencyKey: '',
  })
  let most = 0
  const watch = setInterval(() => { most = Math.max(most, pool.threads) }, 5)
  const outcomes = await Promise.all(Array.from({ length: 16 }, () => pool.run(task())))
  clearInterval(watch)
  t.same(outcomes.filter((o) => !o.ok), [], 'every task decoded')
  t.equal(Math.max(most, pool.threads), 2, 'both workers started for the burst')
  await until('the burst workers to exit', async () => pool.threads, (n) => n === 0)
  t.equal(pool.threads, 0, 'none stays')
  const again = await pool.run(task())
  t.ok(again.ok, 'a request after the quiet spell starts a worker again')
  t.throws(() => new DecoderPool({ threads: 2, idleThreads: -1 }), { code: 'LOOKOUT_INVALID_OPTION' })
})

t.test('LOOKOUT_IDLE_WORKERS keeps workers warm', async (t) => {
  const pool = new DecoderPool({ threads: 2, idleThreads: 1, idleTimeoutMs: 200 })
  t.teardown(() => pool.close())
  await until('the idle worker', async () => pool.threads, (n) => n === 1)
  await new Promise((r) => setTimeout(r, 600))
  t.equal(pool.threads, 1, 'one worker stays past the idle timeout')
})
