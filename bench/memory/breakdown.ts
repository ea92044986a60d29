// Where an idle Lookout's memory goes: starts the embedded default in this
// process (as `lookout serve` does), lets it settle, and prints RSS by mapping,
// each thread's V8 heap, and chdb's own memory accounting. See README.md.
// Usage: node bench/memory/breakdown.ts [settleSeconds=20]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeapStatistics } from 'node:v8'
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

await lookout.stop()
rmSync(dataDir, { recursive: true, force: true })
