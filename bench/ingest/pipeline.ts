// The pipeline under test, however it was obtained: started by the harness as
// a child process (the default) or in this process, the running local server
// (over its admin socket), or any URL and token. Each gives the same things:
// where to send, credentials, resources, the processes to measure, the NATS
// URL for the backlog, and how to look freshness markers up.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stopChild } from '../lib/child.ts'
import { createInterface } from 'node:readline'
import { request } from 'undici'
import { callAdmin, loadConfig, startLookout, type Lookout } from '../../deploy/index.ts'
import { ALL_SCOPES, SCOPES, createToken, createWorkspace, registerResource } from '../../workspace/index.ts'
import { openLogStore, type LogStore } from '../../ingest/index.ts'
import type { ThreadClassifier } from '../lib/procstat.ts'
import { QueryRouteLookup, StoreLookup, type MarkerLookup } from './freshness.ts'
import { setupDispatcher } from './setup-dispatcher.ts'
import type { BenchOptions, PipelineKind } from './options.ts'

export interface WatchedProcess {
  /** Shown in reports: `lookout`, `nats-server`. */
  name: string
  pid: number
  classify: ThreadClassifier
}

export interface Pipeline {
  kind: PipelineKind
  url: string
  workspaceId: string
  token: string
  /** For the legacy route: an exact grant on every resource. */
  legacyToken: string
  resources: string[]
  natsUrl: string | null
  /** Decoder threads, when known. */
  workers: number | null
  loaderMaxRows: number
  processes: WatchedProcess[]
  /** The harness's own process is the pipeline's (in-process): its client shares the threads. */
  sharesHarnessProcess: boolean
  lookup: MarkerLookup | null
  /** The pipeline's log store, when this process holds it. */
  store: LogStore | null
  dataDir: string | null
  notes: string[]
  close(): Promise<void>
}

export const CPU_CATEGORIES = {
  main: 'node main thread',
  workers: 'decoder workers',
  v8: 'node V8 helpers',
  clickhouse: 'ClickHouse (chdb)',
  nats: 'nats-server',
} as const

/**
 * Threads of a Lookout process. Node names its worker threads WorkerThread and
 * its platform threads V8Worker; chdb's inserts and queries run on libuv's pool
 * (async native calls) and ClickHouse's own pools, so everything else is chdb.
 */
export const lookoutThreads: ThreadClassifier = (t, pid) => {
  if (t.tid === pid) return CPU_CATEGORIES.main
  if (t.name === 'WorkerThread') return CPU_CATEGORIES.workers
  if (t.name === 'V8Worker' || t.name === 'DelayedTaskSche') return CPU_CATEGORIES.v8
  return CPU_CATEGORIES.clickhouse
}

export const natsThreads: ThreadClassifier = () => CPU_CATEGORIES.nats

const LOOKOUT_BIN = fileURLToPath(new URL('../../deploy/lookout.ts', import.meta.url))

export async function openPipeline(o: BenchOptions, log: (line: string) => void): Promise<Pipeline> {
  switch (o.pipeline) {
    case 'in-process':
      return inProcess(o)
    case 'child':
      return child(o, log)
    case 'running':
      return running(o)
    case 'url':
      return byUrl(o)
  }
}

async function inProcess(o: BenchOptions): Promise<Pipeline> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-bench-'))
  const config = loadConfig({
    ...process.env, LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_HOST: '127.0.0.1',
    ...(o.workers === undefined ? {} : { LOOKOUT_WORKERS: String(o.workers) }),
  })
  let lookout: Lookout
  try {
    lookout = await startLookout(config, { logger: false, adminSocket: false })
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true })
    throw err
  }
  const ws = (await createWorkspace(lookout.db, 'bench')).id
  const { token } = await createToken(lookout.db, { workspaceId: ws, scopes: ALL_SCOPES, resources: 'all', name: 'bench' })
  const resources: string[] = []
  for (let i = 0; i < o.resources; i++) {
    resources.push((await registerResource(lookout.db, ws, { external_id: `bench-${i}`, name: `bench ${i}` })).resource.id)
  }
  const legacyToken = (await createToken(lookout.db, { workspaceId: ws, scopes: [SCOPES.logsWrite, SCOPES.logsRead], resources, name: 'bench legacy' })).token
  const route = new QueryRouteLookup(lookout.url, ws, token)
  let lookup: MarkerLookup
  if ((await route.available(resources[0] as string)).ok) lookup = route
  else {
    await route.close()
    lookup = new StoreLookup(lookout.store)
  }
  const processes: WatchedProcess[] = [{ name: 'lookout', pid: process.pid, classify: lookoutThreads }]
  if (lookout.nats?.pid !== undefined) processes.push({ name: 'nats-server', pid: lookout.nats.pid, classify: natsThreads })
  return {
    kind: 'in-process', url: lookout.url, workspaceId: ws, token, legacyToken, resources,
    natsUrl: lookout.nats?.url ?? config.natsUrl ?? null,
    workers: config.workers, loaderMaxRows: config.loaderMaxRows, processes, sharesHarnessProcess: true,
    lookup, store: lookout.store, dataDir,
    notes: ['the pipeline runs in the harness process: its main thread and V8 helpers also carry the harness\'s HTTP client'],
    async close() {
      await lookup.close()
      await lookout.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Workspace, tokens and resources on a server reached over its admin socket. */
async function provision(dataDir: string, url: string, o: BenchOptions): Promise<{ ws: string; token: string; legacyToken: string; resources: string[] }> {
  const wsRes = await callAdmin(dataDir, 'POST', '/admin/workspaces', { name: 'bench' }) as { id: string } | null
  if (wsRes === null) throw new Error(`no server answers on the admin socket of ${dataDir}`)
  const ws = wsRes.id
  const t = await callAdmin(dataDir, 'POST', '/admin/tokens', { workspace: ws, scopes: ALL_SCOPES, resources: 'all', name: 'bench' }) as { token: string }
  const resources = await registerOverHttp(url, ws, t.token, o.resources)
  const lt = await callAdmin(dataDir, 'POST', '/admin/tokens', {
    workspace: ws, scopes: [SCOPES.logsWrite, SCOPES.logsRead], resources, name: 'bench legacy',
  }) as { token: string }
  return { ws, token: t.token, legacyToken: lt.token, resources }
}

async function registerOverHttp(url: string, ws: string, token: string, n: number): Promise<string[]> {
  const out: string[] = []
  const stamp = Date.now().toString(36)
  const dispatcher = setupDispatcher()
  for (let i = 0; i < n; i++) {
    const res = await request(`${url}/v1/workspaces/${ws}/resources`, {
      method: 'POST', dispatcher,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ external_id: `bench-${stamp}-${i}`, name: `bench ${i}` }),
    })
    const body = await res.body.json() as { id?: string }
    if (res.statusCode >= 300 || typeof body.id !== 'string') throw new Error(`registering a resource answered ${res.statusCode}: ${JSON.stringify(body).slice(0, 300)}`)
    out.push(body.id)
  }
  await dispatcher.close()
  return out
}

/** The managed nats-server of a data directory: its pid and client URL. */
function managedNats(dataDir: string): { pid: number; url: string } | null {
  const dir = join(dataDir, 'nats')
  try {
    const pid = Number(readFileSync(join(dir, 'nats-server.pid'), 'utf8').trim())
    const ports = JSON.parse(readFileSync(join(dir, `nats-server_${pid}.ports`), 'utf8')) as { nats?: string[] }
    const url = ports.nats?.[0]
    return Number.isInteger(pid) && pid > 0 && url !== undefined ? { pid, url } : null
  } catch {
    return null
  }
}

/** The query route when the pipeline serves it; else ClickHouse directly when it is a server the harness can reach too. */
async function routeLookup(url: string, ws: string, token: string, rid: string, notes: string[], clickhouseUrl?: string): Promise<MarkerLookup | null> {
  const route = new QueryRouteLookup(url, ws, token)
  const a = await route.available(rid)
  if (a.ok) return route
  await route.close()
  if (clickhouseUrl !== undefined) {
    const store = openLogStore({ url: clickhouseUrl })
    const lookup = new StoreLookup(store)
    return { kind: lookup.kind, batched: lookup.batched, find: (m) => lookup.find(m), close: () => store.close() }
  }
  notes.push(`freshness not measured: ${a.reason}, and the harness cannot reach the pipeline's store (--pipeline in-process can, or CLICKHOUSE_URL)`)
  return null
}

async function child(o: BenchOptions, log: (line: string) => void): Promise<Pipeline> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-bench-'))
  const env: Record<string, string | undefined> = {
    ...process.env,
    LOOKOUT_DATA_DIR: dataDir,
    LOOKOUT_PORT: '0',
    LOOKOUT_HOST: '127.0.0.1',
    // Request logging at info costs CPU per request; a sizing run measures the pipeline, not its log volume.
    LOOKOUT_LOG_LEVEL: process.env.LOOKOUT_LOG_LEVEL ?? 'warn',
  }
  if (o.workers !== undefined) env.LOOKOUT_WORKERS = String(o.workers)
  const config = loadConfig(env)
  const proc = spawn(process.execPath, [LOOKOUT_BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  proc.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000)
  })
  const stop = async (): Promise<void> => {
    await stopChild(proc)
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`lookout serve did not start within 60 s: ${stderr}`)), 60_000)
      proc.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`lookout serve exited (${code}): ${stderr}`))
      })
      const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream })
      lines.on('line', (line) => {
        const m = / on (http:\/\/\S+)/.exec(line)
        if (m !== null) {
          clearTimeout(timer)
          resolve(m[1] as string)
        }
      })
    })
    log(`started lookout serve (pid ${proc.pid}) on ${url}, data ${dataDir}`)
    const { ws, token, legacyToken, resources } = await provision(dataDir, url, o)
    const nats = managedNats(dataDir)
    const processes: WatchedProcess[] = [{ name: 'lookout', pid: proc.pid as number, classify: lookoutThreads }]
    if (nats !== null) processes.push({ name: 'nats-server', pid: nats.pid, classify: natsThreads })
    const notes: string[] = []
    // With freshness off nothing is looked up: not even the probe search (which would start an idle pipeline's log engine).
    const lookup = o.freshEveryMs === 0 ? null : await routeLookup(url, ws, token, resources[0] as string, notes, config.clickhouseUrl)
    return {
      kind: 'child', url, workspaceId: ws, token, legacyToken, resources,
      natsUrl: nats?.url ?? config.natsUrl ?? null,
      workers: config.workers, loaderMaxRows: config.loaderMaxRows, processes, sharesHarnessProcess: false,
      lookup, store: null, dataDir, notes,
      async close() {
        await lookup?.close()
        await stop()
      },
    }
  } catch (err) {
    await stop()
    throw err
  }
}


async function running(o: BenchOptions): Promise<Pipeline> {
  const config = loadConfig()
  const pidFile = join(config.dataDir, 'lookout.pid')
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : Number.NaN
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no lookout server holds ${config.dataDir} (start one with lookout serve, or leave out --pipeline running)`)
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host
  const url = `http://${host}:${config.port}`
  const { ws, token, legacyToken, resources } = await provision(config.dataDir, url, o)
  const nats = managedNats(config.dataDir)
  const processes: WatchedProcess[] = [{ name: 'lookout', pid, classify: lookoutThreads }]
  if (nats !== null) processes.push({ name: 'nats-server', pid: nats.pid, classify: natsThreads })
  const notes = [`benchmarked the server holding ${config.dataDir}; its workspace "bench" ${ws} keeps the traffic`]
  const lookup = await routeLookup(url, ws, token, resources[0] as string, notes, config.clickhouseUrl)
  return {
    kind: 'running', url, workspaceId: ws, token, legacyToken, resources,
    natsUrl: nats?.url ?? config.natsUrl ?? null,
    workers: null, loaderMaxRows: config.loaderMaxRows, processes, sharesHarnessProcess: false,
    lookup, store: null, dataDir: config.dataDir, notes,
    async close() {
      await lookup?.close()
    },
  }
}

async function byUrl(o: BenchOptions): Promise<Pipeline> {
  const url = o.url as string
  const ws = o.workspace as string
  const token = o.token as string
  const resources = o.resourceIds ?? await registerOverHttp(url, ws, token, o.resources)
  const processes: WatchedProcess[] = []
  if (o.serverPid !== undefined) processes.push({ name: 'lookout', pid: o.serverPid, classify: lookoutThreads })
  if (o.natsPid !== undefined) processes.push({ name: 'nats-server', pid: o.natsPid, classify: natsThreads })
  const notes: string[] = []
  if (processes.length === 0) notes.push('no --server-pid or --nats-pid: CPU and memory of the pipeline not measured')
  if (o.natsUrl === undefined) notes.push('no --nats-url: JetStream backlog not measured')
  const lookup = await routeLookup(url, ws, token, resources[0] as string, notes)
  return {
    kind: 'url', url, workspaceId: ws, token, legacyToken: token, resources,
    natsUrl: o.natsUrl ?? null, workers: null, loaderMaxRows: 50_000, processes, sharesHarnessProcess: false,
    lookup, store: null, dataDir: null, notes,
    async close() {
      await lookup?.close()
    },
  }
}
