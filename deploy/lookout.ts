#!/usr/bin/env node
// Entry point of the `lookout` command. `lookout collector` runs on machines
// without the server's engines: it loads only its own stage (105-120 MiB
// resident at start; the whole command line's imports take about 280 MiB).
import { leanRestart } from './lean-runtime.ts'

const args = process.argv.slice(2)
leanRestart(args)
const run: Promise<number> = args[0] === 'collector'
  ? import('../collector/index.ts').then((m) => m.collectorCommand(args.slice(1)))
  : import('./cli.ts').then((m) => m.main(args))

run.then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    const e = err as { code?: string; message?: string }
    process.stderr.write(`lookout: ${e.message ?? String(err)}\n`)
    process.exitCode = e.code === 'LOOKOUT_USAGE' ? 2 : 1
  },
)
