// The sizing report: from per-event costs measured on this machine, what a
// target rate and retention need. Pure arithmetic, every assumption stated.

export interface SizingInput {
  /** Events per second to size for. */
  targetEventsPerSec: number
  retentionDays: number
  /** Fraction of a core to plan to use (0.6: 40% headroom for peaks, GC, merges). */
  headroom: number
  /** Copies kept by JetStream (stream replicas) and ClickHouse (table replicas). */
  replicas: number
  /** Loader outage the JetStream buffer must absorb, hours. */
  bufferHours: number
  /** Where the costs were measured. */
  measuredAtEventsPerSec: number
  /** CPU seconds per million events, by component. */
  cpu: {
    /** The Node main thread of the api and loader process (HTTP, publish, loader's JS): a single thread. */
    nodeMain: number
    /** Decoder worker threads. */
    workers: number
    /** V8's GC and compiler threads. */
    v8: number
    /** ClickHouse work (chdb threads, or a server's). */
    clickhouse: number
    nats: number
  }
  /** Request bytes per event as sent. */
  wireBytesPerEvent: number
  /** Row bytes per event in JetStream (JSONEachRow). */
  streamBytesPerEvent: number
  /** ClickHouse bytes on disk per event (compressed, merged). */
  diskBytesPerEvent: number
  /** Events per second one serial insert stream reached (the raw insert baseline): one loader's ceiling. */
  insertEventsPerSec: number
  /** Peak resident memory measured per process, bytes (NaN when unknown). */
  peakRss: { lookout: number; nats: number }
  /** Cores of this machine (for the "N cores like these" reading). */
  machineCores: number
}

export interface SizingLine {
  component: string
  cores: number
  processes: number
  memory: string
  disk: string
  basis: string
}

export interface SizingReport {
  target: number
  retentionDays: number
  lines: SizingLine[]
  totals: { cores: number; diskBytes: number; ingressMBps: number; diskBytesPerDay: number }
  assumptions: string[]
}

export function fmtBytes(b: number): string {
  if (!Number.isFinite(b)) return 'n/a'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']
  let i = 0
  while (b >= 1024 && i < units.length - 1) {
    b /= 1024
    i++
  }
  return `${b >= 100 || i === 0 ? b.toFixed(0) : b.toFixed(1)} ${units[i]}`
}

/** Busy cores for `rate` events/s at `secPerMillion` CPU seconds per million events, planned at `headroom`. */
export function coresFor(rate: number, secPerMillion: number, headroom: number): number {
  return (rate * secPerMillion) / 1e6 / headroom
}

export function sizeDeployment(i: SizingInput): SizingReport {
  const r = i.targetEventsPerSec
  const h = i.headroom
  const mainCores = coresFor(r, i.cpu.nodeMain, h)
  const workerCores = coresFor(r, i.cpu.workers + i.cpu.v8, h)
  // One event loop per process: the main thread's share decides how many processes at least.
  const apiProcesses = Math.max(1, Math.ceil(mainCores))
  const workersPerProcess = Math.max(1, Math.ceil(workerCores / apiProcesses))
  const loaders = Math.max(1, Math.ceil(r / (i.insertEventsPerSec * h)))
  const natsCores = coresFor(r, i.cpu.nats, h)
  const chCores = coresFor(r, i.cpu.clickhouse, h)
  const streamBytesPerSec = r * i.streamBytesPerEvent
  const natsDisk = streamBytesPerSec * i.bufferHours * 3600 * i.replicas
  const diskPerDay = r * 86_400 * i.diskBytesPerEvent
  // 20% over the retained data: parts being merged exist twice for a while.
  const chDisk = diskPerDay * i.retentionDays * i.replicas * 1.2
  const natsNodes = i.replicas > 1 ? i.replicas : 1
  const lines: SizingLine[] = [
    {
      component: 'ingest api (HTTP + decode)',
      cores: mainCores + workerCores,
      processes: apiProcesses,
      memory: `${fmtBytes(i.peakRss.lookout)} measured per process (incl. chdb)`,
      disk: '-',
      basis: `${apiProcesses} \`lookout serve --role api\` process(es) with LOOKOUT_WORKERS=${workersPerProcess}: main thread ${fmtCpu(i.cpu.nodeMain)}, workers+V8 ${fmtCpu(i.cpu.workers + i.cpu.v8)}`,
    },
    {
      component: 'loader',
      cores: 0,
      processes: loaders,
      memory: 'a Node process plus one insert batch (LOOKOUT_LOADER_MAX_ROWS rows)',
      disk: '-',
      basis: `${loaders} \`lookout serve --role loader\` process(es) (or as many loaders inside the api processes): one serial insert stream reached ${fmtRate(i.insertEventsPerSec)} here; its JS cost is inside the main-thread figure`,
    },
    {
      component: 'NATS JetStream',
      cores: natsCores,
      processes: natsNodes,
      memory: `${fmtBytes(i.peakRss.nats)} measured`,
      disk: `${fmtBytes(natsDisk)} (${i.bufferHours} h of backlog x ${i.replicas} replica(s))`,
      basis: `${fmtCpu(i.cpu.nats)}; ${fmtBytes(streamBytesPerSec)}/s of row messages`,
    },
    {
      component: 'ClickHouse',
      cores: chCores,
      processes: i.replicas,
      memory: 'inside the lookout figure (chdb)',
      disk: `${fmtBytes(chDisk)} (${fmtBytes(diskPerDay)}/day x ${i.retentionDays} d x ${i.replicas} replica(s) + 20% for merges)`,
      basis: `${fmtCpu(i.cpu.clickhouse)} (parse, index, compress, merge); ${i.diskBytesPerEvent.toFixed(0)} B/event on disk`,
    },
  ]
  const cores = mainCores + workerCores + natsCores * i.replicas + chCores * i.replicas
  return {
    target: r,
    retentionDays: i.retentionDays,
    lines,
    totals: { cores, diskBytes: natsDisk + chDisk, ingressMBps: (r * i.wireBytesPerEvent) / 1e6, diskBytesPerDay: diskPerDay * i.replicas },
    assumptions: [
      `Costs were measured at ${fmtRate(i.measuredAtEventsPerSec)} on this machine (${i.machineCores} cores) and are assumed to scale linearly with the rate; cores of another kind scale by their relative speed (compare the raw baselines).`,
      `Cores are planned at ${(h * 100).toFixed(0)}% utilisation (--headroom ${h}).`,
      'A Node process has one event loop: the main-thread cost sets the minimum number of ingest processes; the decoder workers are spread over them.',
      'The embedded pipeline runs api, loader and chdb in one process; the loader\'s JavaScript (fetch, concat, ack) is counted in the main thread, its inserts under ClickHouse.',
      `One loader inserts serially; its ceiling is taken as the raw insert rate measured here, planned at ${(h * 100).toFixed(0)}%.`,
      `ClickHouse disk uses the bytes per event of this run's traffic after a merge (${i.diskBytesPerEvent.toFixed(0)} B/event); other traffic compresses differently.`,
      'Memory is the peak resident size measured per process at that rate; a Node process is bounded by LOOKOUT_MAX_INFLIGHT_BYTES of requests in flight plus the loader\'s batch (LOOKOUT_LOADER_MAX_ROWS); JetStream keeps its backlog on disk, not in memory.',
      `Replicas: ${i.replicas} (JetStream num_replicas and ClickHouse replicas multiply their CPU and disk).`,
      `The JetStream buffer holds ${i.bufferHours} h of row messages (${i.streamBytesPerEvent.toFixed(0)} B/event) for a loader or ClickHouse outage.`,
      `Ingress: ${((r * i.wireBytesPerEvent) / 1e6).toFixed(1)} MB/s of request bodies at ${i.wireBytesPerEvent.toFixed(0)} B/event as sent.`,
      `Disk totals are for the retention asked (${i.retentionDays} d), in binary units (1 GiB = 2^30 bytes).`,
    ],
  }
}

export function fmtRate(r: number): string {
  if (!Number.isFinite(r)) return 'n/a'
  return r >= 1e6 ? `${(r / 1e6).toFixed(2)}M events/s` : r >= 1e3 ? `${(r / 1e3).toFixed(1)}k events/s` : `${r.toFixed(0)} events/s`
}

function fmtCpu(secPerMillion: number): string {
  return `${secPerMillion.toFixed(2)} CPU-s per million events`
}
