// Decoder workers by default: a core is left to the log engine when it runs
// in the process (bench/e2e README, "one decoder beside the embedded engine").
import t from 'tap'
import { availableParallelism } from 'node:os'
import { defaultWorkers, loadConfig } from '../../deploy/config.ts'

t.test('one worker per core, one fewer beside the embedded engine, never none', async (t) => {
  t.equal(defaultWorkers('embedded', 2), 1, 'two cores, embedded engine: one decoder')
  t.equal(defaultWorkers('embedded', 8), 7)
  t.equal(defaultWorkers('embedded', 1), 1, 'one core: still one')
  t.equal(defaultWorkers('server', 2), 2, 'a ClickHouse server elsewhere: one per core')
  t.equal(defaultWorkers('server', 1), 1)
})

t.test('the configuration applies it, and LOOKOUT_WORKERS wins', async (t) => {
  const cores = availableParallelism()
  t.equal(loadConfig({ LOOKOUT_DATA_DIR: '/tmp/x' }).workers, Math.max(1, cores - 1), 'embedded default')
  t.equal(loadConfig({ LOOKOUT_DATA_DIR: '/tmp/x', CLICKHOUSE_URL: 'http://127.0.0.1:8123' }).workers, cores, 'with CLICKHOUSE_URL')
  t.equal(loadConfig({ LOOKOUT_DATA_DIR: '/tmp/x', LOOKOUT_WORKERS: '3' }).workers, 3, 'given')
  t.throws(() => loadConfig({ LOOKOUT_DATA_DIR: '/tmp/x', LOOKOUT_WORKERS: '0' }), /LOOKOUT_WORKERS/, 'at least one, named in the error')
})
