// Gzip flood: how much memory does `lookout serve` take while senders push
// far more compressed bodies than it can decode, each inflating 20:1? The
// in-flight budget (LOOKOUT_MAX_INFLIGHT_BYTES) charges a request its body,
// its inflated size and its rows until the publish is acknowledged, so RSS
// should stay near idle RSS plus the budget; refusals are 429 with Retry-After.
// Usage: node bench/flood/run.ts [seconds=30] [connections=64] [budgetMiB=256]
import { gzipSync } from 'node:zlib'
import { Agent, request } from 'undici'
import { openPipeline } from '../ingest/pipeline.ts'
import { parseBenchArgs } from '../ingest/options.ts'
import { DEFAULT_RESULTS_DIR } from '../ingest/index.ts'
import { processRss } from '../lib/procstat.ts'

const seconds = Number(process.argv[2] ?? 30)
const connections = Number(process.argv[3] ?? 64)
const budgetMiB = Number(process.argv[4] ?? 256)
const MiB = 1024 * 1024
process.env.LOOKOUT_MAX_INFLIGHT_BYTES = String(budgetMiB * MiB)

const pipeline = await openPipeline(parseBenchArgs(['--pipeline', 'child', '--resources', '1', '--quiet'], DEFAULT_RESULTS_DIR), (l) => console.log(l))
const pid = pipeline.processes[0]?.pid as number
const url = `${pipeline.url}/v1/workspaces/${pipeline.workspaceId}/resources/${pipeline.resources[0]}/logs`
const agent = new Agent({ connections, pipelining: 1 })

// 1000 events of log-like lines (a few phrases in a seeded random order, a request number): about 20:1 gzipped.
let seed = 1
const next = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff)
const PHRASES = ['GET /api/v1/orders 200', 'connection refused by upstream', 'cache miss for key session', 'worker heartbeat ok', 'retrying request after timeout']
const line = (i: number): string => {
  let s = `flood ${i} req=${next() % 100_000} `
  for (let k = 0; k < 12; k++) s += PHRASES[next() % PHRASES.length] + '; '
  return s
}
const json = JSON.stringify({ events: Array.from({ length: 1000 }, (_, i) => ({ message: line(i), severity: 'INFO' })) })
const body = gzipSync(json)
console.log(`body: ${(json.length / MiB).toFixed(2)} MiB JSON, ${(body.byteLength / 1024).toFixed(0)} KiB gzip (ratio ${(json.length / body.byteLength).toFixed(1)}:1)`)

await new Promise((r) => setTimeout(r, 5000))
const idle = processRss(pid)
let peak = idle
const sampler = setInterval(() => {
  const rss = processRss(pid)
  if (rss > peak) peak = rss
}, 100)
const statuses = new Map<number, number>()
const deadline = Date.now() + seconds * 1000
async function sender(): Promise<void> {
  while (Date.now() < deadline) {
    const res = await request(url, {
      method: 'POST', dispatcher: agent, body,
      headers: { authorization: `Bearer ${pipeline.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    }).catch(() => null)
    const status = res?.statusCode ?? -1
    statuses.set(status, (statuses.get(status) ?? 0) + 1)
    await res?.body.dump()
    if (status === 429 || status === 503) await new Promise((r) => setTimeout(r, 50))
  }
}
await Promise.all(Array.from({ length: connections }, sender))
clearInterval(sampler)
const accepted = (statuses.get(200) ?? 0) * 1000 // events per body
console.log(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}; ${(accepted / seconds).toFixed(0)} events/s acknowledged`)
console.log(`RSS idle ${(idle / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB; peak - idle = ${((peak - idle) / MiB).toFixed(0)} MiB for a ${budgetMiB} MiB budget (ratio ${((peak - idle) / (budgetMiB * MiB)).toFixed(2)})`)
await agent.close()
await pipeline.close()
