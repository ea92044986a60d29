// `npm run bench [-- options]`: the ingest sizing harness. See README.md.
import { benchIngest } from './index.ts'

benchIngest(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    const e = err as { code?: string; message?: string }
    process.stderr.write(`bench: ${e.message ?? String(err)}\n`)
    process.exitCode = e.code === 'LOOKOUT_USAGE' ? 2 : 1
  },
)
