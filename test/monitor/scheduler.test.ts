// Scheduling: concurrency is bounded per kind, and a slow probe holds only its
// own slot (probes of other kinds, and the writes of their results, go on
// while it hangs); checks spread over their interval by a stable phase.
import t from 'tap'
import { createServer, type Socket } from 'node:net'
import { startHttp, startTcp } from '../helpers/servers.ts'
import { harness } from '../helpers/monitor-harness.ts'

const h = await harness()
t.teardown(() => h.close())
t.beforeEach(() => h.clear())

async function until(what: string, ok: () => Promise<boolean>, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

t.test('concurrency is capped per kind and a hanging probe holds only its own slot', async (t) => {
  // Accepts and never answers: each tcp probe against it hangs until its (long) timeout.
  const sockets = new Set<Socket>()
  let open = 0
  let maxOpen = 0
  const silent = createServer((s) => {
    sockets.add(s)
    maxOpen = Math.max(maxOpen, ++open)
    s.on('error', () => undefined)
    s.once('close', () => {
      open--
      sockets.delete(s)
    })
  })
  const silentPort = await new Promise<number>((resolve) => silent.listen(0, '127.0.0.1', () => resolve((silent.address() as { port: number }).port)))
  let silentClosed = false
  t.teardown(() => {
    if (silentClosed) return
    for (const s of sockets) s.destroy()
    return new Promise<void>((resolve) => silent.close(() => resolve()))
  })
  const web = await startHttp()
  t.teardown(() => web.close())

  const rid = await h.resource()
  const slow: string[] = []
  for (let i = 0; i < 4; i++) {
    slow.push((await h.check(rid, 'tcp', { host: '127.0.0.1', port: silentPort, expect: 'HELLO', interval_seconds: 600, timeout_seconds: 300 }, { runNow: true })).id)
  }
  const fast: string[] = []
  for (let i = 0; i < 3; i++) fast.push((await h.check(rid, 'https', { url: web.url, interval_seconds: 600 }, { runNow: true })).id)

  const byKind = new Map<string, number>()
  const observer = { checkRun: (kind: string, result: string) => byKind.set(`${kind}:${result}`, (byKind.get(`${kind}:${result}`) ?? 0) + 1) }
  const m = await h.monitor({ concurrency: { tcp: 2 }, observer })
  h.clock.advance(0) // the dispatch timer: every check is due now

  const observed = async (ids: string[]) => {
    const r = await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_checks WHERE id = ANY($1::uuid[]) AND last_observed_at IS NOT NULL', [ids])
    return r.rows[0]?.n ?? 0
  }
  await until('the https results', async () => (await observed(fast)) === fast.length)
  t.equal(await observed(fast), 3, 'the https checks were probed and written while tcp probes hang')
  t.equal(await observed(slow), 0, 'the hanging tcp probes are still waiting')
  await until('two connections at the silent port', async () => open === 2)
  t.equal(maxOpen, 2, 'only two tcp probes at a time (the cap), the others queue')
  t.equal(m.stats().probes, 5, 'three https and two tcp probes started; two tcp wait for a slot')

  // The silent server goes away: the hanging probes end, and the queued ones take their slots.
  silentClosed = true
  for (const s of sockets) s.destroy()
  await new Promise<void>((resolve) => silent.close(() => resolve()))
  await m.settle()
  t.equal(await observed(slow), 4, 'every tcp check was probed in the end')
  t.equal(maxOpen, 2, 'never more than the cap')
  for (const id of slow) t.equal((await h.row(id)).last_status, 'down')
  for (const id of fast) t.equal((await h.row(id)).last_status, 'up')
  t.same(Object.fromEntries(byKind), { 'https:up': 3, 'tcp:down': 4 }, 'the observer (metrics) is told each result with its kind')
})

t.test('checks spread over their interval: each runs once per interval at its own stable phase', async (t) => {
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const ids: string[] = []
  for (let i = 0; i < 40; i++) ids.push((await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })).id)
  const m = await h.monitor()
  const start = h.clock.now()
  await h.advance(2 * 60_000, [m], 5_000)
  const r = await h.db.query<{ check_id: string; at: Date[] }>(
    `SELECT check_id, array_agg(observed_at ORDER BY observed_at) AS at FROM monitor_results WHERE observed_at > $1 GROUP BY check_id`,
    [new Date(start).toISOString()])
  t.equal(r.rows.length, 40, 'every check ran')
  const slots = new Set<number>()
  for (const row of r.rows) {
    t.equal(row.at.length, 2, 'twice in two intervals')
    const [first, second] = row.at.map((d) => new Date(d).getTime()) as [number, number]
    t.equal(second - first, 60_000, 'exactly one interval apart (its phase is stable)')
    slots.add(Math.floor(((first - start) % 60_000) / 5_000))
  }
  // 40 phases over 12 five-second steps: a scheduler without jitter would put them all in one.
  t.ok(slots.size >= 6, `spread over the interval (${slots.size} of 12 five-second slots used)`)
})
