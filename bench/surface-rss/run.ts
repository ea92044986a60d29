// What a decoder worker thread and the remote collector hold once their modules
// are loaded, against a raw baseline measured in the same run (an empty worker
// thread, a bare Node process). README.md says why.
import { Worker } from 'node:worker_threads'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
const MiB = 2 ** 20
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

/** Run in a fresh child process each time: a terminated worker's pages stay with the process. */
function workerAdds(module: string | null): number {
  const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--worker', module ?? ''])
  return Number(out.toString())
}

async function measureWorker(module: string | null): Promise<number> {
  globalThis.gc?.()
  const before = process.memoryUsage().rss
  const code = module === null
    ? `require('node:worker_threads').parentPort.postMessage('ok')`
    : `import(${JSON.stringify(root + module)}).then(() => require('node:worker_threads').parentPort.postMessage('ok'))`
  const w = new Worker(code, { eval: true })
  await new Promise((resolve) => w.once('message', resolve))
  await new Promise((resolve) => setTimeout(resolve, 300))
  globalThis.gc?.()
  const added = (process.memoryUsage().rss - before) / MiB
  await w.terminate()
  return added
}

function processRss(module: string | null): number {
  const load = module === null ? '' : `await import(${JSON.stringify(root + module)});`
  const out = execFileSync(process.execPath, ['--input-type=module', '-e',
    `${load} await new Promise((r) => setTimeout(r, 300)); process.stdout.write(String(process.memoryUsage().rss))`])
  return Number(out.toString()) / MiB
}

if (process.argv[2] === '--worker') {
  process.stdout.write(String(await measureWorker(process.argv[3] === '' ? null : (process.argv[3] ?? null))))
  process.exit(0)
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const rows: [string, number, number][] = []
const base: number[] = []
const decoder: number[] = []
const bare: number[] = []
const collector: number[] = []
for (let i = 0; i < ROUNDS; i++) {
  base.push(workerAdds(null))
  decoder.push(workerAdds('ingest/decode/worker.ts'))
  bare.push(processRss(null))
  collector.push(processRss('collector/index.ts'))
}
rows.push(['empty worker thread (raw baseline)', median(base), 1])
rows.push(['decoder worker thread', median(decoder), median(decoder) / median(base)])
rows.push(['bare node process (raw baseline)', median(bare), 1])
rows.push(['collector stage loaded', median(collector), median(collector) / median(bare)])
console.log(`median of ${ROUNDS} rounds, MiB resident (a worker thread: what it adds to the process)`)
for (const [what, mib, ratio] of rows) console.log(`${what.padEnd(38)} ${mib.toFixed(1).padStart(7)}  ${ratio.toFixed(2)}x baseline`)
