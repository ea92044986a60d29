// Memory of `lookout serve` and `lookout desktop` as real processes on the
// embedded default: idle RSS once startup settles, peak RSS during an
// e2e-like OTLP load, RSS after the burst; against raw baselines measured in
// the same run (Node alone, Node with an empty chdb session). See README.md.
// Usage: node bench/memory/run.ts   (BENCH_EVENTS=300000 BENCH_CONCURRENCY=8 BENCH_ROUNDS=2)
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stopChild } from '../lib/child.ts'
import { createInterface } from 'node:readline'
import { Pool, request } from 'undici'
import { openPipeline } from '../ingest/pipeline.ts'
import { parseBenchArgs } from '../ingest/options.ts'
import { DEFAULT_RESULTS_DIR } from '../ingest/index.ts'
import { DEFAULT_SHAPE, encodeProtobuf, makeRecords } from '../lib/traffic.ts'
import { mib, rssOf, type Rss } from './proc.ts'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 300_000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))
const LOOKOUT_BIN = here('../../deploy/lookout.ts')
const METRICS_TOKEN = 'memory-bench-metrics-token-0123456789'

// Idle is read past the decoder workers' idle timeout (30 s): the worker of the start-up warm-up has gone by then.
const IDLE_MIN_MS = 50_000
const IDLE_MAX_MS = 75_000

/** Waits until RSS moves less than 2 MiB in 3 s (at least minMs, at most maxMs after the call), then reads it. */
async function settled(pid: number, minMs = 10_000, maxMs = 45_000): Promise<Rss> {
  const t0 = Date.now()
  let last = rssOf(pid)
  for (;;) {
    await new Promise((r) => setTimeout(r, 3000))
    const now = rssOf(pid)
    const still = Math.abs(now.rss - last.rss) < 2 * 1024 * 1024
    last = now
    if ((still && Date.now() - t0 >= minMs) || Date.now() - t0 >= maxMs) return now
  }
}

async function spawnReady(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  const proc = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  proc.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000)
  })
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start within 90 s: ${stderr}`)), 90_000)
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}): ${stderr}`)))
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (ready.test(line)) {
        clearTimeout(timer)
        resolve()
      }
    })
  })
  return proc
}


function natsPid(dataDir: string): number | null {
  try {
    return Number(readFileSync(join(dataDir, 'nats', 'nats-server.pid'), 'utf8').trim()) || null
  } catch {
    return null
  }
}

async function baseline(mode: 'bare' | 'chdb'): Promise<Rss> {
  const proc = await spawnReady([here('./baseline.ts'), mode], process.env, /^ready$/)
  const rss = await settled(proc.pid as number, 5000, 20_000)
  await stopChild(proc)
  return rss
}

async function desktopIdle(): Promise<{ lookout: Rss; nats: Rss }> {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-memory-desktop-'))
  const env = { ...process.env, XDG_RUNTIME_DIR: join(dir, 'run'), LOOKOUT_DATA_DIR: join(dir, 'data'), LOOKOUT_LOG_LEVEL: 'warn' }
  const proc = await spawnReady([LOOKOUT_BIN, 'desktop'], env, /^lookout desktop: owner socket/)
  try {
    const lookout = await settled(proc.pid as number, IDLE_MIN_MS, IDLE_MAX_MS)
    const np = natsPid(join(dir, 'data'))
    return { lookout, nats: np === null ? rssOf(-1) : rssOf(np) }
  } finally {
    await stopChild(proc)
    rmSync(dir, { recursive: true, force: true })
  }
}

interface ServeFigures { idle: Rss; idleNats: Rss; peak: number; peakNats: number; after: Rss; accepted: number; seconds: number }

async function serveUnderLoad(bodies: readonly Uint8Array[]): Promise<ServeFigures> {
  process.env.LOOKOUT_METRICS_TOKEN = METRICS_TOKEN
  const pipeline = await openPipeline(parseBenchArgs(['--pipeline', 'child', '--resources', '1', '--fresh-every', '0', '--quiet'], DEFAULT_RESULTS_DIR), () => undefined)
  try {
    const pid = pipeline.processes[0]?.pid as number
    const np = pipeline.processes[1]?.pid ?? -1
    const idle = await settled(pid, IDLE_MIN_MS, IDLE_MAX_MS)
    const idleNats = rssOf(np)
    let peak = idle.rss
    let peakNats = idleNats.rss
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid).rss)
      peakNats = Math.max(peakNats, rssOf(np).rss)
    }, 100)
    const pool = new Pool(pipeline.url, { connections: CONCURRENCY, pipelining: 1 })
    const path = `/v1/workspaces/${pipeline.workspaceId}/resources/${pipeline.resources[0]}/otlp/v1/logs`
    const headers = { authorization: `Bearer ${pipeline.token}`, 'content-type': 'application/x-protobuf' }
    let next = 0
    let accepted = 0
    const t0 = performance.now()
    const sender = async (): Promise<void> => {
      for (let i = next++; i < bodies.length; i = next++) {
        for (;;) {
          const res = await pool.request({ method: 'POST', path, headers, body: bodies[i] })
          await res.body.dump()
          if (res.statusCode === 200) break
          if (res.statusCode !== 429 && res.statusCode !== 503) throw new Error(`ingest answered ${res.statusCode}`)
          await new Promise((r) => setTimeout(r, 200))
        }
        accepted += DEFAULT_SHAPE.records
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, sender))
    await pool.close()
    while (await loadedRows(pipeline.url) < accepted) await new Promise((r) => setTimeout(r, 200))
    const seconds = (performance.now() - t0) / 1000
    clearInterval(sampler)
    // The burst is over: what the process keeps (the loader's pull and buffers, the engine's merges settle).
    const after = await settled(pid, 20_000, 60_000)
    return { idle, idleNats, peak, peakNats, after, accepted, seconds }
  } finally {
    await pipeline.close()
  }
}

async function loadedRows(url: string): Promise<number> {
  const res = await request(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  const text = await res.body.text()
  return Number(/^lookout_loader_rows_total\s+(\S+)/m.exec(text)?.[1] ?? 0)
}

process.stdout.write(`encoding ${Math.ceil(EVENTS / DEFAULT_SHAPE.records)} OTLP requests of ${DEFAULT_SHAPE.records} records...\n`)
const bodies: Uint8Array[] = []
for (let i = 0; i < Math.ceil(EVENTS / DEFAULT_SHAPE.records); i++) bodies.push(encodeProtobuf(makeRecords(i + 1)))

const line = (label: string, r: Rss, base?: number) =>
  `  ${label.padEnd(34)} ${mib(r.rss).padStart(7)} MiB (anon ${mib(r.anon).padStart(6)}, file ${mib(r.file).padStart(6)})` +
  (base === undefined ? '' : `  ${(r.rss / base).toFixed(2)}x chdb baseline`)
for (let round = 1; round <= ROUNDS; round++) {
  process.stdout.write(`\nround ${round} of ${ROUNDS}\n`)
  const bare = await baseline('bare')
  const chdb = await baseline('chdb')
  process.stdout.write(`${line('baseline: node alone', bare)}\n${line('baseline: node + empty chdb session', chdb)}\n`)
  const desktop = await desktopIdle()
  process.stdout.write(`${line('lookout desktop, idle', desktop.lookout, chdb.rss)}\n${line('  its nats-server', desktop.nats)}\n`)
  const serve = await serveUnderLoad(bodies)
  process.stdout.write(`${line('lookout serve, idle', serve.idle, chdb.rss)}\n${line('  its nats-server', serve.idleNats)}\n`)
  process.stdout.write(`  lookout serve, peak under load      ${mib(serve.peak).padStart(7)} MiB  (${serve.accepted} events stored in ${serve.seconds.toFixed(1)} s; nats-server peak ${mib(serve.peakNats)} MiB)\n`)
  process.stdout.write(`${line('lookout serve, after the burst', serve.after, chdb.rss)}\n`)
}
