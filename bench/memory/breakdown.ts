// Where an idle Lookout's memory goes: starts the embedded default in this
// process (as `lookout serve` does), lets it settle, and prints RSS by mapping,
// each thread's V8 heap, and chdb's own memory accounting. See README.md.
// With a load (events > 0) it then sends e2e-like OTLP requests through the
// HTTP listener and prints the peak of each part while they are stored.
// Usage: node bench/memory/breakdown.ts [settleSeconds=20] [events=0]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeapStatistics } from 'node:v8'
import { Pool } from 'undici'
import { ALL_SCOPES, createToken, createWorkspace, registerResource } from '../../workspace/index.ts'
import { DEFAULT_SHAPE, encodeProtobuf, makeRecords } from '../lib/traffic.ts'
import { loadConfig, startLookout } from '../../deploy/index.ts'
import { byName, mappings, mib, rssOf } from './proc.ts'

const settleMs = Number(process.argv[2] ?? 20) * 1000
const dataDir = mkdtempSync(join(tmpdir(), 'lookout-memory-'))
const config = loadConfig({ ...process.env, LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0' })
const lookout = await startLookout(config, { logger: false, secretKeyFile: true })
await new Promise((r) => setTimeout(r, settleMs))

const s = rssOf()
console.log(`RSS ${mib(s.rss)} MiB (anonymous ${mib(s.anon)}, file ${mib(s.file)}), ${s.threads} threads`)
const maps = mappings()
console.log('\nresident by mapping:')
for (const m of byName(maps).slice(0, 8)) console.log(`  ${mib(m.rss).padStart(7)} MiB  ${m.name} (${m.count} mappings, ${mib(m.size)} MiB mapped)`)
console.log('\nlargest anonymous mappings:')
for (const m of maps.filter((x) => x.name === '[anon]' || x.name === '[heap]').sort((a, b) => b.rss - a.rss).slice(0, 10)) {
  console.log(`  ${mib(m.rss).padStart(7)} MiB of ${mib(m.size).padStart(8)} MiB  ${m.perms} ${m.name}`)
}

const heapLine = (h: { total_heap_size: number; used_heap_size: number; malloced_memory: number; external_memory: number }) =>
  `heap ${mib(h.total_heap_size)} MiB (used ${mib(h.used_heap_size)}), malloced ${mib(h.malloced_memory)}, external ${mib(h.external_memory)}`
const mu = process.memoryUsage()
console.log(`\nmain thread: ${heapLine(getHeapStatistics())}; arrayBuffers ${mib(mu.arrayBuffers)} MiB`)
const workers = await lookout.ingest?.decoders.heapStatistics() ?? []
workers.forEach((h, i) => console.log(`decoder worker ${i + 1}: ${heapLine(h)}`))

const metrics = await lookout.store.query<{ metric: string; v: string }>(
  `SELECT metric, toString(value) AS v FROM system.metrics
   WHERE metric IN ('MemoryTracking', 'MergesMutationsMemoryTracking', 'GlobalThread', 'GlobalThreadActive', 'BackgroundSchedulePoolSize',
                    'BackgroundMergesAndMutationsPoolSize', 'BackgroundCommonPoolSize')
      OR (metric LIKE '%CacheBytes' AND value > 0) ORDER BY metric`)
console.log('\nchdb system.metrics:')
for (const r of metrics.rows) console.log(`  ${r.metric} ${/Bytes|Memory/.test(r.metric) ? `${mib(Number(r.v))} MiB` : r.v}`)
const settings = await lookout.store.query<{ name: string; value: string }>(
  `SELECT name, value FROM system.server_settings
   WHERE name IN ('max_server_memory_usage', 'mark_cache_size', 'index_mark_cache_size', 'primary_index_cache_size', 'uncompressed_cache_size',
                  'query_condition_cache_size', 'background_pool_size', 'max_thread_pool_size', 'max_thread_pool_free_size',
                  'compiled_expression_cache_size') ORDER BY name`)
console.log('chdb server settings:')
for (const r of settings.rows) console.log(`  ${r.name} = ${r.value}`)

const events = Number(process.argv[3] ?? 0)
if (events > 0) await underLoad(events)

/** Sends `events` OTLP events (8 connections) and samples each part's memory until they are stored. */
async function underLoad(n: number): Promise<void> {
  const bodies = Array.from({ length: Math.ceil(n / DEFAULT_SHAPE.records) }, (_, i) => encodeProtobuf(makeRecords(i + 1)))
  const encoded = bodies.reduce((a, b) => a + b.byteLength, 0)
  const ws = (await createWorkspace(lookout.db, 'bench')).id
  const { token } = await createToken(lookout.db, { workspaceId: ws, scopes: ALL_SCOPES, resources: 'all' })
  const rid = (await registerResource(lookout.db, ws, { external_id: 'bench', name: 'bench' })).resource.id
  const peak = { rss: 0, anon: 0, chdb: 0, mainHeap: 0, mainExternal: 0, workers: 0, workerThreads: 0 }
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      const r = rssOf()
      peak.rss = Math.max(peak.rss, r.rss)
      peak.anon = Math.max(peak.anon, r.anon)
      const h = getHeapStatistics()
      peak.mainHeap = Math.max(peak.mainHeap, h.total_heap_size)
      peak.mainExternal = Math.max(peak.mainExternal, h.external_memory)
      const w = await lookout.ingest?.decoders.heapStatistics() ?? []
      peak.workers = Math.max(peak.workers, w.reduce((a, x) => a + x.total_heap_size + x.external_memory, 0))
      peak.workerThreads = Math.max(peak.workerThreads, w.length)
      const m = await lookout.store.query<{ v: string }>("SELECT toString(value) AS v FROM system.metrics WHERE metric = 'MemoryTracking'")
      peak.chdb = Math.max(peak.chdb, Number(m.rows[0]?.v ?? 0))
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
  const pool = new Pool(lookout.url, { connections: 8, pipelining: 1 })
  const path = `/v1/workspaces/${ws}/resources/${rid}/otlp/v1/logs`
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/x-protobuf' }
  let next = 0
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let i = next++; i < bodies.length; i = next++) {
      for (;;) {
        const res = await pool.request({ method: 'POST', path, headers, body: bodies[i] })
        await res.body.dump()
        if (res.statusCode === 200) break
        await new Promise((r) => setTimeout(r, 200))
      }
    }
  }))
  await pool.close()
  bodies.length = 0
  for (;;) {
    const r = await lookout.store.query<{ c: string }>(`SELECT count() AS c FROM ${lookout.store.database}.logs`)
    if (Number(r.rows[0]?.c ?? 0) >= n) break
    await new Promise((r) => setTimeout(r, 200))
  }
  sampling = false
  await sampler
  console.log(`\nunder load (${n} events; each figure its own peak, sampled every ~100 ms):`)
  console.log(`  RSS ${mib(peak.rss)} MiB (anonymous ${mib(peak.anon)}), including the harness's ${mib(encoded)} MiB of encoded requests`)
  console.log(`  chdb MemoryTracking ${mib(peak.chdb)} MiB`)
  console.log(`  main thread V8 heap ${mib(peak.mainHeap)} MiB, external (ArrayBuffers, PGlite memory) ${mib(peak.mainExternal)} MiB`)
  console.log(`  decoder workers (${peak.workerThreads} at most) V8 heap + external ${mib(peak.workers)} MiB`)
}

await lookout.stop()
rmSync(dataDir, { recursive: true, force: true })
