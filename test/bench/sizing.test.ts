import t from 'tap'
import { coresFor, sizeDeployment, type SizingInput } from '../../bench/ingest/sizing.ts'

const base: SizingInput = {
  targetEventsPerSec: 400_000,
  retentionDays: 7,
  headroom: 0.5,
  replicas: 1,
  bufferHours: 1,
  measuredAtEventsPerSec: 50_000,
  cpu: { nodeMain: 2.5, workers: 4, v8: 1, clickhouse: 5, nats: 0.5 },
  wireBytesPerEvent: 600,
  streamBytesPerEvent: 1000,
  diskBytesPerEvent: 100,
  insertEventsPerSec: 150_000,
  peakRss: { lookout: 1024 ** 3, nats: 64 * 1024 ** 2 },
  machineCores: 2,
}

t.test('cores from CPU seconds per million events', async (t) => {
  t.equal(coresFor(1_000_000, 1, 1), 1, 'one CPU-second per million at a million a second is one core')
  t.equal(coresFor(400_000, 2.5, 0.5), 2)
  t.equal(coresFor(0, 10, 0.5), 0)
})

t.test('the sizing arithmetic for 400k events/s, 7 days', async (t) => {
  const r = sizeDeployment(base)
  const line = (name: string) => r.lines.find((l) => l.component.startsWith(name))
  const api = line('ingest api')
  // main: 400k * 2.5e-6 / 0.5 = 2 cores -> 2 processes; workers+V8: 400k * 5e-6 / 0.5 = 4 cores -> 2 per process.
  t.equal(api?.cores, 6)
  t.equal(api?.processes, 2)
  t.match(api?.basis, /LOOKOUT_WORKERS=2/)
  // loaders: 400k / (150k * 0.5) = 5.33 -> 6.
  t.equal(line('loader')?.processes, 6)
  t.match(line('loader')?.basis, /^6 `lookout serve --role loader` process/)
  t.match(api?.basis, /^2 `lookout serve --role api` process/)
  const nats = line('NATS')
  t.equal(nats?.cores, 0.4)
  // buffer: 400k events/s * 1000 B * 3600 s = 1.44e12 B = 1.31 TiB.
  t.match(nats?.disk, /^1\.3 TiB/)
  const ch = line('ClickHouse')
  t.equal(ch?.cores, 4)
  // 400k * 86400 * 100 B = 3.456e12 B/day; * 7 * 1.2 = 2.903e13 B = 26.4 TiB.
  t.equal(r.totals.diskBytesPerDay, 3.456e12)
  t.match(ch?.disk, /^26\.4 TiB \(3\.1 TiB\/day x 7 d x 1 replica/)
  t.equal(r.totals.cores, 6 + 0.4 + 4)
  t.equal(r.totals.diskBytes, 1.44e12 + 3.456e12 * 7 * 1.2)
  t.equal(r.totals.ingressMBps, 240)
  t.ok(r.assumptions.some((a) => a.includes('50.0k events/s')), 'states where the costs were measured')
  t.ok(r.assumptions.some((a) => a.includes('50% utilisation')), 'states the headroom')
})

t.test('replicas multiply storage and the replicated components', async (t) => {
  const one = sizeDeployment(base)
  const three = sizeDeployment({ ...base, replicas: 3 })
  t.equal(three.totals.diskBytes, one.totals.diskBytes * 3)
  t.equal(three.totals.cores, 6 + 3 * 0.4 + 3 * 4)
  t.equal(three.lines.find((l) => l.component === 'NATS JetStream')?.processes, 3)
})

t.test('small targets still need one of each', async (t) => {
  const r = sizeDeployment({ ...base, targetEventsPerSec: 10 })
  for (const l of r.lines) t.ok(l.processes >= 1, `${l.component}: at least one process`)
})
