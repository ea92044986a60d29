// waitForQuiet (bench/ingest/quiet.ts): the baselines wait for an idle pipeline.
import t from 'tap'
import { cpuOfProcesses, waitForQuiet } from '../../bench/ingest/quiet.ts'

/** A fake clock and CPU counter: the pipeline uses `load[i]` cores during interval i. */
function machine(load: number[]) {
  let clock = 0
  let cpu = 0
  let i = 0
  return {
    now: () => clock,
    cpuSeconds: () => cpu,
    sleep: async (ms: number) => {
      cpu += (load[Math.min(i++, load.length - 1)] as number) * ms / 1000
      clock += ms
    },
  }
}

t.test('returns after the first interval under the threshold', async (t) => {
  const r = await waitForQuiet({ ...machine([1.8, 1.2, 0.5, 0.1, 0]), maxCores: 0.15 })
  t.equal(r.waitedMs, 4000)
  t.equal(r.quiet, true)
  t.ok(Math.abs(r.cores - 0.1) < 1e-9, 'the cores of the last interval')
})

t.test('an idle pipeline costs one interval', async (t) => {
  const r = await waitForQuiet({ ...machine([0]), intervalMs: 500 })
  t.equal(r.waitedMs, 500)
  t.equal(r.quiet, true)
})

t.test('gives up at the timeout and says so', async (t) => {
  const r = await waitForQuiet({ ...machine([1]), timeoutMs: 10_000 })
  t.same(r, { waitedMs: 10_000, quiet: false, cores: 1 })
})

t.test('the threshold is strict', async (t) => {
  const r = await waitForQuiet({ ...machine([0.15, 0.15, 0.149]), maxCores: 0.15 })
  t.equal(r.waitedMs, 3000)
})

t.test('real processes: this one counts, a pid that is gone counts 0', async (t) => {
  const cpu = cpuOfProcesses([process.pid, 2 ** 22 + 1])
  const a = cpu()
  const end = Date.now() + 50
  while (Date.now() < end) Math.sqrt(Math.random())
  t.ok(cpu() > a, 'busy-waiting used CPU')
})
