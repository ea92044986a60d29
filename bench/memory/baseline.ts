// The raw baselines of the memory benchmark, each a process of its own that
// stays up until killed: `bare` is Node alone, `chdb` is Node with chdb loaded
// and one empty session open (the engine Lookout embeds, doing nothing).
// Usage: node bench/memory/baseline.ts bare|chdb
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const mode = process.argv[2]
let cleanup = () => undefined as void
if (mode === 'chdb') {
  const { Session } = await import('chdb')
  const dir = mkdtempSync(join(tmpdir(), 'lookout-memory-chdb-'))
  const session = new Session(dir)
  session.query('SELECT 1')
  cleanup = () => {
    session.close()
    rmSync(dir, { recursive: true, force: true })
  }
} else if (mode !== 'bare') throw new Error('usage: baseline.ts bare|chdb')
process.stdout.write('ready\n')
const keep = setInterval(() => undefined, 60_000)
process.once('SIGTERM', () => {
  clearInterval(keep)
  cleanup()
})
