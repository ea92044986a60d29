// Native blocks (ingest/rows/native-rows.ts, ingest/rows/row-writer.ts): the decoders'
// writer, the writer from row objects (encodeRows) and the engine's own Native
// output are the same bytes for the same rows; the reader reads every value
// back exactly. On a real embedded engine.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LOG_COLUMNS, ROW_FORMATS, countStoredRows, encodeRows, migrateLogStore, openLogStore, readStoredRows, storedRowHead, type StoredRow } from '../../ingest/internal.ts'
import { RowWriter, newRowFields } from '../../ingest/rows/rows.ts'
import { NativeSink } from '../../ingest/rows/native-bytes.ts'

const WS = '11111111-1111-4111-8111-111111111111'
const RID = '22222222-2222-4222-8222-222222222222'
const BASE_ID = '0123456789abcdef01234567'
const NOW_NS = BigInt(Date.now()) * 1_000_000n
const RECEIVED = NOW_NS.toString()

/** A request of `rows` records, every column varying: caller and derived ids, resources, scopes, maps empty and full, long and multi-byte text. */
/** What each row of varied() holds, from the fields written (not read back), without its batch id (its chunk's). */
const intended: Omit<StoredRow, 'batch_id'>[] = []

function varied(rows: number, maxChunkBytes: number): RowWriter {
  const w = new RowWriter(WS, RID, BASE_ID, RECEIVED, maxChunkBytes, 4096)
  const f = newRowFields()
  intended.length = 0
  for (let i = 0; i < rows; i++) {
    f.timeNs = (NOW_NS - BigInt(i) * 1_000_003n).toString()
    f.observedNs = i % 3 === 0 ? '0' : (NOW_NS - BigInt(i)).toString()
    f.eventId = i % 5 === 0 ? `caller-${i}-✓` : ''
    f.severityNumber = 1 + (i % 24)
    f.severityText = ['INFO', 'WARN', 'ERROR', ''][i % 4] as string
    // Around the one-byte length bound (127/128 bytes), multi-byte characters pushing past it, and long text.
    f.message = i % 7 === 0 ? 'x'.repeat(120 + (i % 16)) : i % 7 === 1 ? 'é'.repeat(60 + (i % 8)) : i % 7 === 2 ? 'long ' + 'z'.repeat(20_000) : `row ${i} "q"\n😀 \ud800`
    f.source = i % 2 === 0 ? 'app' : `src-${i % 3}`
    f.attrCount = i % 4
    for (let k = 0; k < f.attrCount; k++) {
      // Over 256 distinct keys in a block: index widths past one byte.
      f.attrKeys[k] = `key-${i % 500}-${k}`
      f.attrValues[k] = `value ${i}/${k} ✓`
    }
    f.resourceJson = i % 10 < 5 ? '{"service.name":"web","host":"a"}' : i % 10 < 8 ? '{}' : '{"service.name":"job"}'
    f.scopeName = i % 9 === 0 ? '' : 'scope'
    f.scopeVersion = `1.${i % 2}`
    f.traceId = i % 2 === 0 ? '' : (i.toString(16).padStart(32, '0'))
    f.spanId = i % 2 === 0 ? '' : (i.toString(16).padStart(16, '0'))
    f.flags = i * 65_537
    w.write(f)
    const attributes: Record<string, string> = {}
    for (let k = 0; k < f.attrCount; k++) attributes[f.attrKeys[k] as string] = f.attrValues[k] as string
    intended.push({
      workspace_id: WS, resource_id: RID, timestamp: f.timeNs, observed_timestamp: f.observedNs, received_at: RECEIVED,
      event_id: f.eventId === '' ? BASE_ID + i.toString(16).padStart(8, '0') : f.eventId, severity_number: f.severityNumber,
      severity_text: f.severityText, message: f.message.replace('\ud800', '\ufffd'), source: f.source, attributes,
      resource_attributes: JSON.parse(f.resourceJson) as Record<string, string>, scope_name: f.scopeName, scope_version: f.scopeVersion,
      trace_id: f.traceId, span_id: f.spanId, flags: f.flags,
    })
  }
  return w
}

const withoutBatch = (rows: StoredRow[]) => rows.map(({ batch_id: _, ...rest }) => rest)

t.test('the writer from row objects writes the decoders\' bytes, block by block', async (t) => {
  const { data, spans } = varied(700, 64 * 1024).finish()
  t.ok(spans.length > 3, `${spans.length} blocks`)
  let rows = 0
  for (const s of spans) {
    const block = data.subarray(s.offset, s.offset + s.length)
    const read = readStoredRows(block)
    t.equal(read.length, s.rows)
    t.equal(countStoredRows(block), s.rows, 'counted from the block without reading its rows')
    t.ok(Buffer.from(block).equals(encodeRows(read)), `block ${s.id}: the same bytes`)
    for (const r of read) {
      t.equal(r.batch_id, s.id)
      rows++
    }
  }
  t.equal(rows, 700)
  t.equal(countStoredRows(data), 700, 'a sequence of blocks is counted whole')
  const all = readStoredRows(data)
  t.same(withoutBatch(all), intended, 'every value as written')
  t.equal(all[5]?.event_id, 'caller-5-✓', 'a caller-given id')
  t.equal(all[6]?.event_id, `${BASE_ID}00000006`, 'a derived id numbers the row in the request')
  t.equal(all[3]?.message, 'row 3 "q"\n😀 \ufffd', 'a lone surrogate becomes U+FFFD')
  t.same(all[9]?.resource_attributes, { 'service.name': 'job' })
  t.same(storedRowHead(data), { workspaceId: WS, resourceId: RID, receivedNs: RECEIVED })
})

t.test('a new base id at finish renames every block, batch id and derived event id', async (t) => {
  const rebased = 'fedcba9876543210fedcba98'
  const { data, spans } = varied(300, 16 * 1024).finish(rebased)
  t.ok(spans.every((s, n) => s.id === rebased + n.toString(16).padStart(8, '0')))
  const rows = readStoredRows(data)
  t.ok(rows.every((r) => r.batch_id.startsWith(rebased) && (r.event_id.startsWith('caller-') || r.event_id.startsWith(rebased))))
  t.throws(() => varied(1, 1024).finish('not-hex'), /24 lowercase hex digits/)
})

t.test('nanosecond times are written exactly, without a BigInt', async (t) => {
  const values = ['0', '1', '999999999', '1000000000', '4294967295999999999', '1795486318382532328', '9223372036854775807', '18446744073709551615'] // pinned-date: codec round trip of edge values; no clock is read
  for (let i = 0; i < 200; i++) values.push((BigInt(Math.floor(Math.random() * 2 ** 32)) * 1_000_000_000n + BigInt(Math.floor(Math.random() * 1e9))).toString())
  const sink = new NativeSink(16)
  for (const v of values) sink.decimalInt64(v)
  const buf = sink.view()
  t.same(values.map((_, i) => buf.readBigUInt64LE(i * 8).toString()), values)
})

t.test('the engine reads the blocks as written, and writes the same bytes for the same rows', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-native-'))
  const store = openLogStore({ path: dir })
  t.teardown(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  await migrateLogStore(store, { retentionDays: 7 })
  const { data, spans } = varied(400, 1 << 30).finish()
  t.equal(spans.length, 1, 'one block')
  await store.insertJsonRows('logs', data, 'native-test', ROW_FORMATS.native)
  const written = readStoredRows(data)
  t.same(withoutBatch(written), intended, 'the block holds every value as written (over 256 keys: two-byte indexes)')
  const select = LOG_COLUMNS.map((c) => (c.kind === 'ns' ? `toString(toUnixTimestamp64Nano(${c.name})) AS ${c.name}` : c.name)).join(', ')
  const back = (await store.query<Record<string, unknown>>(`SELECT ${select} FROM ${store.database}.logs ORDER BY timestamp DESC`)).rows
  t.same(withoutBatch(back as unknown as StoredRow[]), intended, 'the engine stores every value of every row as written')
  // The engine's own Native output of the same rows, in the writer's order: the same bytes.
  const dump = join(dir, 'engine.native')
  await store.command(`INSERT INTO FUNCTION file('${dump}', Native) SELECT ${LOG_COLUMNS.map((c) => c.name).join(', ')} FROM ${store.database}.logs ORDER BY timestamp DESC`)
  const { readFileSync } = await import('node:fs')
  const engine = readFileSync(dump)
  t.same(readStoredRows(engine), written, 'the reader reads the engine\'s blocks')
  t.ok(engine.equals(Buffer.from(data)), `byte for byte (${engine.byteLength} and ${data.byteLength} bytes)`)
})
