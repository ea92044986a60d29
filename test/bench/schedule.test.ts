import t from 'tap'
import { judgeStep, OpenLoopSchedule, RateSearch, type Thresholds } from '../../bench/ingest/schedule.ts'

t.test('open-loop schedule: intended times are fixed by the rate, not by answers', async (t) => {
  const s = new OpenLoopSchedule(100, 1000, 2000)
  t.equal(s.total, 200, '100 requests/s for 2 s')
  t.equal(s.intendedAt(0), 1000)
  t.equal(s.intendedAt(1), 1010)
  t.equal(s.intendedAt(150), 2500)
  t.equal(s.dueBy(999.9), 0, 'nothing before the start')
  t.equal(s.dueBy(1000), 1, 'the first request is due at the start')
  t.equal(s.dueBy(1009.99), 1)
  t.equal(s.dueBy(1010), 2)
  t.equal(s.dueBy(1500), 51)
  t.equal(s.dueBy(10_000), 200, 'capped at the schedule total however late the sender is')
  // A sender that stalled for 300 ms finds 30 requests due at once, each with its own intended time.
  const due = s.dueBy(1300) - s.dueBy(1000)
  t.equal(due, 30)
})

t.test('open-loop schedule: fractional rates and bad arguments', async (t) => {
  const s = new OpenLoopSchedule(0.5, 0, 10_000)
  t.equal(s.total, 5)
  t.equal(s.intendedAt(4), 8000)
  t.equal(s.dueBy(7999), 4)
  t.equal(new OpenLoopSchedule(3, 0, 1000).total, 3)
  t.equal(new OpenLoopSchedule(1000 / 7, 0, 700).total, 100, 'no floating-point loss of the last request')
  t.throws(() => new OpenLoopSchedule(0, 0, 1000), RangeError)
  t.throws(() => new OpenLoopSchedule(Number.POSITIVE_INFINITY, 0, 1000), RangeError)
  t.throws(() => new OpenLoopSchedule(10, 0, -1), RangeError)
})

t.test('rate search grows until a failure, then bisects', async (t) => {
  const capacity = 50_000
  const search = new RateSearch({ start: 10_000, factor: 2, maxSteps: 20, refine: 2 })
  const tried: number[] = []
  for (let r = search.next(); r !== null; r = search.next()) {
    tried.push(Math.round(r))
    search.record(r, r <= capacity)
  }
  t.same(tried, [10_000, 20_000, 40_000, 80_000, 56_569, 47_568])
  t.equal(Math.round(search.best ?? 0), 47_568)
  t.equal(Math.round(search.lowestFail ?? 0), 56_569)
})

t.test('rate search steps down when the first step fails', async (t) => {
  const search = new RateSearch({ start: 100_000, factor: 2, maxSteps: 20, refine: 1 })
  const tried: number[] = []
  for (let r = search.next(); r !== null; r = search.next()) {
    tried.push(Math.round(r))
    search.record(r, r <= 30_000)
  }
  t.same(tried, [100_000, 50_000, 25_000, 35_355])
  t.equal(Math.round(search.best ?? 0), 25_000)
})

t.test('rate search stops at maxSteps, with no refinement, or when stopped', async (t) => {
  const a = new RateSearch({ start: 1, factor: 10, maxSteps: 3, refine: 5 })
  let n = 0
  for (let r = a.next(); r !== null; r = a.next()) {
    n++
    a.record(r, true)
  }
  t.equal(n, 3)
  t.equal(a.best, 100)
  const b = new RateSearch({ start: 1000, factor: 2, maxSteps: 10, refine: 0 })
  b.record(1000, true)
  b.record(2000, false)
  t.equal(b.next(), null, 'no bisection asked for')
  const c = new RateSearch({ start: 1000, factor: 2, maxSteps: 10, refine: 3 })
  c.record(1000, true)
  c.stop()
  t.equal(c.next(), null)
  t.throws(() => new RateSearch({ start: 1000, factor: 1, maxSteps: 10, refine: 0 }), RangeError)
})

t.test('a step passes only within every threshold', async (t) => {
  const th: Thresholds = { maxP99Ms: 500, maxErrorRate: 0.01, maxFreshnessMs: 10_000, maxSenderLagMs: 250 }
  const ok = { ackP99Ms: 120, errorRate: 0, freshnessP99Ms: 900, freshnessLost: 0, senderLagP99Ms: 3 }
  t.same(judgeStep(ok, th), { pass: true, harnessLimited: false, reasons: [] })
  t.equal(judgeStep({ ...ok, freshnessP99Ms: Number.NaN }, th).pass, true, 'freshness not measured does not fail a step')
  const slow = judgeStep({ ...ok, ackP99Ms: 501 }, th)
  t.equal(slow.pass, false)
  t.match(slow.reasons[0], /ack p99 501\.0 ms > 500\.0 ms/)
  t.equal(judgeStep({ ...ok, ackP99Ms: Number.NaN }, th).pass, false, 'no answered request is no pass')
  t.match(judgeStep({ ...ok, errorRate: 0.02 }, th).reasons[0], /error rate 2\.00% > 1\.00%/)
  t.match(judgeStep({ ...ok, freshnessP99Ms: 12_000 }, th).reasons[0], /freshness p99 12\.00 s > 10\.00 s/)
  t.match(judgeStep({ ...ok, freshnessLost: 2 }, th).reasons[0], /2 freshness marker/)
  const lag = judgeStep({ ...ok, senderLagP99Ms: 400 }, th)
  t.equal(lag.pass, false)
  t.equal(lag.harnessLimited, true)
  t.equal(judgeStep({ ...ok, errorRate: 0.01 }, th).pass, true, 'the threshold itself passes')
})
