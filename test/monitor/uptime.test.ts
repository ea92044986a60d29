// Uptime % over 24 h / 7 d / 30 d from the hourly counts the writer keeps:
// real TCP probes on a manual clock, days apart, so the windows differ.
import t from 'tap'
import { uptimeOf } from '../../monitor/index.ts'
import { startTcp } from '../helpers/servers.ts'
import { harness } from '../helpers/monitor-harness.ts'

const h = await harness()
t.teardown(() => h.close())
const MIN = 60_000

t.test('up and down observations by hour; unknown time is no evidence; older days fall out of the short windows', async (t) => {
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })
  const m = await h.monitor()
  const observe = async (up: boolean, n: number) => {
    if (up) await target.reopen()
    else await target.close()
    for (let i = 0; i < n; i++) {
      await m.step()
      await h.advance(MIN, [m], MIN)
    }
  }
  await observe(true, 6)
  await observe(false, 2)
  let u = (await uptimeOf(h.db, [c.id], h.clock.now())).get(c.id)
  t.same(u, { h24: 75, d7: 75, d30: 75 }, '6 up, 2 down')
  // Three days later (nothing probed meanwhile: no evidence, not downtime), four more up.
  await h.advance(3 * 86_400_000, [], 86_400_000)
  await observe(true, 4)
  u = (await uptimeOf(h.db, [c.id], h.clock.now())).get(c.id)
  t.equal(u?.h24, 100, 'the last 24 h: only the 4 up')
  t.equal(u?.d7, 83.333, '10 up of 12')
  t.equal(u?.d30, 83.333)
  // Past 30 days everything is gone from every window.
  t.same((await uptimeOf(h.db, [c.id], h.clock.now() + 31 * 86_400_000)).get(c.id), undefined)
  t.same((await uptimeOf(h.db, [], h.clock.now())).size, 0)
})
