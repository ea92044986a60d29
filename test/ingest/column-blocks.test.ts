// Migration 8: a wide part of the log table compresses each column in small
// blocks, so reading one row of a narrow column decompresses a granule or two of
// it, not the engine's default 64 KiB (32 granules of a one-byte column). Read
// from the part's own files: each compressed block starts with a 16-byte
// checksum, a method byte, then its compressed and uncompressed sizes (UInt32 LE).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { INDEX_GRANULARITY } from '../../ingest/internal.ts'
import { startTestLookout } from '../helpers/lookout.ts'
import { objectRowLine } from '../helpers/object-row.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
const store = lk.lookout.store
const db = store.database
const ROWS = 12 * INDEX_GRANULARITY

/** The uncompressed sizes of the compressed blocks in one column file. */
function blockSizes(file: Buffer): number[] {
  const sizes: number[] = []
  for (let at = 0; at < file.length;) {
    const compressed = file.readUInt32LE(at + 17)
    sizes.push(file.readUInt32LE(at + 21))
    at += 16 + compressed
  }
  return sizes
}

t.test('a merged wide part holds a narrow column in blocks of a granule or two', async (t) => {
  const rid = await lk.resource('blocks')
  const now = BigInt(Date.now()) * 1_000_000n
  let body = ''
  for (let i = 0; i < ROWS; i++) {
    const ts = now - BigInt(i) * 1_000_000n
    body += objectRowLine({ workspaceId: lk.workspaceId, resourceId: rid, receivedNs: ts, timestampNs: ts, batchId: 'blocks', eventId: `b-${i}`, message: `line ${i}`, severityNumber: 1 + (i % 24) })
  }
  await store.insertJsonRows('logs', Buffer.from(body), 'blocks-test')
  // A part this small is compact; the test asks for the wide form a merged day takes.
  await store.command(`ALTER TABLE ${db}.logs MODIFY SETTING min_bytes_for_wide_part = 0`)
  t.teardown(() => store.command(`ALTER TABLE ${db}.logs MODIFY SETTING min_bytes_for_wide_part = 268435456`))
  await store.command(`OPTIMIZE TABLE ${db}.logs FINAL`)
  const parts = await store.query<{ path: string; type: string; rows: string }>(
    `SELECT path, part_type AS type, rows FROM system.parts WHERE database = {db:String} AND table = 'logs' AND active`, { db })
  t.equal(parts.rows.length, 1, 'one merged part')
  const part = parts.rows[0]
  if (part === undefined) return
  t.equal(part.type, 'Wide')
  t.equal(Number(part.rows), ROWS)
  const sizes = blockSizes(readFileSync(join(part.path, 'severity_number.bin')))
  t.equal(sizes.reduce((a, b) => a + b, 0), ROWS, 'the blocks hold the column (one byte a row)')
  const largest = Math.max(...sizes)
  t.ok(largest <= 2 * INDEX_GRANULARITY, `largest block ${largest} B: at most two granules of it`)
  t.ok(sizes.length >= ROWS / (2 * INDEX_GRANULARITY), `${sizes.length} blocks`)
})
