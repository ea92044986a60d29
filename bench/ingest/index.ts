// Public surface of the ingest sizing harness: `lookout bench ingest` and
// `npm run bench` call benchIngest; the pieces are exported for tests.
import { fileURLToPath } from 'node:url'
import { runIngestBench } from './bench.ts'
import { BENCH_USAGE, parseBenchArgs } from './options.ts'
import { Progress } from './progress.ts'
import { formatReport, writeOutputs } from './report.ts'
import type { BenchResult } from './results.ts'

export { runIngestBench } from './bench.ts'
export type { BenchIo } from './bench.ts'
export { parseBenchArgs, parseDuration, parseRate, parseMix, BenchUsageError, BENCH_USAGE, SCENARIOS } from './options.ts'
export type { BenchOptions, ScenarioName } from './options.ts'
export { OpenLoopSchedule, RateSearch, judgeStep } from './schedule.ts'
export { sizeDeployment, coresFor } from './sizing.ts'
export type { SizingInput, SizingReport } from './sizing.ts'
export { formatReport, writeOutputs } from './report.ts'
export type { BenchResult, StepResult, ScenarioResult } from './results.ts'

export const DEFAULT_RESULTS_DIR = fileURLToPath(new URL('../results', import.meta.url))

function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`
}

/** `lookout bench ingest [options]`: runs, prints the report, writes the files. Returns the exit code. */
export async function benchIngest(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(BENCH_USAGE + '\n')
    return 0
  }
  const options = parseBenchArgs(argv, DEFAULT_RESULTS_DIR)
  const progress = new Progress(options.progress)
  let aborted = false
  const onSigint = () => {
    if (aborted) process.exit(130)
    aborted = true
    progress.log('interrupted: finishing this step, then reporting what was measured (Ctrl-C again to quit at once)')
  }
  process.on('SIGINT', onSigint)
  let result: BenchResult
  try {
    result = await runIngestBench(options, { progress, log: (l) => progress.log(l), aborted: () => aborted })
  } finally {
    process.off('SIGINT', onSigint)
  }
  const files = writeOutputs(result, options.out, options.name ?? `ingest-${stamp(new Date(result.startedAt))}`)
  process.stdout.write('\n' + formatReport(result))
  process.stdout.write(`\nwritten: ${files.join(', ')}\n`)
  return aborted ? 130 : 0
}
