// Rows for the embedded engine go through a file. libchdb (26.7.3) loads the
// same bytes 1.3-1.5x faster, with about 30 % less CPU per row, as
// `INSERT ... SELECT * FROM file(...)` than as `INSERT ... FORMAT` on the bytes
// handed over in memory (`rawInsert`, or the data inline in the statement):
// bench/insert-format README, "In memory or through a file". Writing 30 MiB
// into the page cache costs a few milliseconds; the file is gone before the
// kernel would write it back.
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { rowBodyPieces, type RowBody } from '../rows/row-body.ts'

/** The engine reads these as glob patterns in a file() path (`*`, `?`, `{a,b}`, `{1..9}`). */
const GLOB = /[*?{}]/
/** One sequence for every spool of the process: two stores may share a data directory. */
let nextFile = 0

export class InsertSpool {
  readonly #dir: string

  constructor(dir: string) {
    this.#dir = dir
  }

  /** A spool in `dir`, emptied of what an earlier process left; null where the engine would read its path as a pattern. */
  static open(dir: string): InsertSpool | null {
    if (GLOB.test(dir)) return null
    mkdirSync(dir, { recursive: true })
    const ours = `${process.pid}-`
    for (const name of readdirSync(dir)) if (!name.startsWith(ours)) rmSync(join(dir, name), { force: true })
    return new InsertSpool(dir)
  }

  /** Writes `body`, piece by piece, to a new file of its own (off the event loop) and returns the file's path. */
  async write(body: RowBody): Promise<string> {
    const path = join(this.#dir, `${process.pid}-${nextFile++}.rows`)
    await writeFile(path, rowBodyPieces(body))
    return path
  }

  async remove(path: string): Promise<void> {
    try {
      await unlink(path)
    } catch {
      // Already gone (the folder was emptied); nothing holds it.
    }
  }
}

/** `value` as the content of a single-quoted SQL string. */
export function sqlString(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")
}
