// The collector's durable buffer on real files: its bounds at their edges,
// acknowledgements surviving a restart, a torn last line, compaction.
import t from 'tap'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ObservationBuffer } from '../../collector/internal.ts'

type Obs = { id: number; observed_at: string }
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'lookout-buffer-'))
  t.teardown(() => rmSync(d, { recursive: true, force: true }))
  return d
}
const now = Date.now()
const obs = (id: number, ageMs = 0): Obs => ({ id, observed_at: new Date(now - ageMs).toISOString() })
const ids = (b: ObservationBuffer<Obs>) => b.peek(1_000).map((o) => o.id)

t.test('at most maxRecords: the oldest go first', async (t) => {
  const b = new ObservationBuffer<Obs>(dir(), { maxRecords: 3 })
  await b.open(now)
  await b.append([obs(1), obs(2), obs(3)], now)
  t.same(ids(b), [1, 2, 3], 'exactly at the bound: all kept')
  await b.append([obs(4)], now)
  t.same(ids(b), [2, 3, 4], 'one past it: the oldest dropped')
  t.equal(b.dropped, 1)
  await b.close()
})

t.test('at most maxBytes', async (t) => {
  const line = JSON.stringify(obs(1)).length + 1
  const b = new ObservationBuffer<Obs>(dir(), { maxBytes: 2 * line })
  await b.open(now)
  await b.append([obs(1), obs(2)], now)
  t.same(ids(b), [1, 2])
  await b.append([obs(3)], now)
  t.same(ids(b), [2, 3])
  await b.close()
})

t.test('acknowledged observations stay gone after a restart; unacknowledged ones come back in order', async (t) => {
  const d = dir()
  const b = new ObservationBuffer<Obs>(d)
  await b.open(now)
  await b.append([obs(1), obs(2), obs(3)], now)
  await b.ack(2)
  await b.append([obs(4)], now)
  // No close: as after kill -9, with the appends synced.
  const again = new ObservationBuffer<Obs>(d)
  await again.open(now)
  t.same(ids(again), [3, 4])
  await again.close()
  await b.close()
})

t.test('a torn last line is cut off; observations past maxAgeMs are dropped at open', async (t) => {
  const d = dir()
  const b = new ObservationBuffer<Obs>(d, { maxAgeMs: 60_000 })
  await b.open(now)
  await b.append([obs(1, 58_000), obs(2, 56_000)], now)
  t.same(ids(b), [1, 2])
  await b.close()
  appendFileSync(join(d, 'observations.jsonl'), '{"id":3,"observed_')
  const again = new ObservationBuffer<Obs>(d, { maxAgeMs: 60_000 })
  // Three seconds later: the first is 61 s old, past the bound; the second 59 s, within it.
  await again.open(now + 3_000)
  t.same(ids(again), [2])
  t.equal(again.dropped, 1)
  t.ok(readFileSync(join(d, 'observations.jsonl'), 'utf8').endsWith('\n'), 'the torn line is gone from the file')
  await again.close()
})

t.test('the log is rewritten once enough of it is acknowledged', async (t) => {
  const d = dir()
  const b = new ObservationBuffer<Obs>(d, { compactBytes: 1000 })
  await b.open(now)
  await b.append(Array.from({ length: 100 }, (_, i) => obs(i)), now)
  const before = statSync(join(d, 'observations.jsonl')).size
  await b.ack(90)
  t.ok(statSync(join(d, 'observations.jsonl')).size < before / 5, 'only the unacknowledged tenth is left')
  t.equal(readFileSync(join(d, 'observations.sent'), 'utf8'), '0')
  await b.append([obs(100)], now)
  await b.close()
  const again = new ObservationBuffer<Obs>(d)
  await again.open(now)
  t.same(ids(again), [90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100])
  await again.close()
})
