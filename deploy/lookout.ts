#!/usr/bin/env node
// Entry point of the `lookout` command.
import { main } from './cli.ts'

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    const e = err as { code?: string; message?: string }
    process.stderr.write(`lookout: ${e.message ?? String(err)}\n`)
    process.exitCode = e.code === 'LOOKOUT_USAGE' ? 2 : 1
  },
)
