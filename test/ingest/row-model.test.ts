// The row model (ingest/row-model.ts) is the one description of a stored row:
// the table it creates is the table existing data directories hold, and the
// writer, the insert's column list, the stored-row reader, search and the
// tail's reader all agree on it, on a real embedded engine.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LOG_COLUMNS, ROW_COLUMNS, ROW_FORMATS, migrateLogStore, openLogStore, readStoredRows, storedRowHead, type LogStore, type StoredRow } from '../../ingest/internal.ts'
import { RowWriter, newRowFields } from '../../ingest/rows/rows.ts'
import { LogSearch, type LogFilter } from '../../query/index.ts'
import { eventRowOf, toEvent, type EventRow, type LogEvent } from '../../query/event.ts'
import { receivedQuery } from '../../query/sql.ts'

// The columns of the logs table as written out by hand before the row model
// (ingest/store/schema.ts, migration 1): data directories hold this table.
const OLD_COLUMNS = `
  workspace_id UUID,
  resource_id UUID,
  timestamp DateTime64(9) CODEC(Delta, ZSTD(1)),
  observed_timestamp DateTime64(9) CODEC(Delta, ZSTD(1)),
  received_at DateTime64(9) CODEC(Delta, ZSTD(1)),
  batch_id String CODEC(ZSTD(1)),
  event_id String CODEC(ZSTD(1)),
  severity_number UInt8,
  severity_text LowCardinality(String),
  message String CODEC(ZSTD(1)),
  source LowCardinality(String),
  attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
  resource_attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
  scope_name LowCardinality(String),
  scope_version LowCardinality(String),
  trace_id String CODEC(ZSTD(1)),
  span_id String CODEC(ZSTD(1)),
  flags UInt32,`
// The payload order the writer has always written (earlier ROW_COLUMNS): queued messages are in it.
const OLD_PAYLOAD = [
  'workspace_id', 'resource_id', 'received_at', 'batch_id', 'timestamp', 'observed_timestamp', 'event_id',
  'severity_number', 'severity_text', 'message', 'source', 'attributes', 'resource_attributes',
  'scope_name', 'scope_version', 'trace_id', 'span_id', 'flags',
]

const dir = mkdtempSync(join(tmpdir(), 'lookout-row-model-'))
const inner = openLogStore({ path: dir })
// The real store, recording the statements the migrations send it.
const statements: string[] = []
const store: LogStore = {
  embedded: inner.embedded,
  database: inner.database,
  cluster: inner.cluster,
  command: (sql, params) => {
    statements.push(sql)
    return inner.command(sql, params)
  },
  query: (sql, params) => inner.query(sql, params),
  insertJsonRows: (table, body, token, format) => inner.insertJsonRows(table, body, token, format),
  ping: () => inner.ping(),
  close: () => inner.close(),
}
await migrateLogStore(store, { retentionDays: 7 })
t.teardown(async () => {
  await inner.close()
  rmSync(dir, { recursive: true, force: true })
})
const db = store.database

t.test('the model keeps the payload order and the table of existing data directories', async (t) => {
  t.same(ROW_COLUMNS, OLD_PAYLOAD, 'payload order unchanged')
  t.same([...LOG_COLUMNS].map((c) => c.at).sort((a, b) => a - b), OLD_PAYLOAD.map((_, i) => i), 'each payload position once')
  const create = statements.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${db}.logs `)) ?? ''
  t.ok(create.startsWith(`CREATE TABLE IF NOT EXISTS ${db}.logs (${OLD_COLUMNS}\n  INDEX `), 'the CREATE TABLE states the columns as before, word for word')

  // The engine's view: a table from the old text and the migrated one have the same columns.
  await inner.command(`CREATE TABLE ${db}.logs_before (${OLD_COLUMNS.replace(/,$/, '')}) ENGINE = MergeTree ORDER BY (workspace_id, resource_id, timestamp)`)
  const columns = async (table: string) => (await inner.query<Record<string, unknown>>(
    'SELECT name, type, position, compression_codec FROM system.columns WHERE database = {db:String} AND table = {table:String} ORDER BY position',
    { db, table },
  )).rows
  const before = await columns('logs_before')
  t.equal(before.length, LOG_COLUMNS.length)
  t.same(await columns('logs'), before, 'names, types, order and codecs')
})

const WS = '11111111-1111-4111-8111-111111111111'
const RID = '22222222-2222-4222-8222-222222222222'
const BASE_ID = '0123456789abcdef01234567'
// Recent times: older rows would be dropped by the table's TTL under the test's feet.
const NOW_NS = BigInt(Date.now()) * 1_000_000n
const RECEIVED = (NOW_NS - 1_000n).toString()

t.test('a row written by the writer, inserted and read back by search and by the tail, is the row written', async (t) => {
  const w = new RowWriter(WS, RID, BASE_ID, RECEIVED, 1 << 20)
  const f = newRowFields()
  const expected: StoredRow[] = []
  // Every value distinct from every other, so two columns swapped anywhere would show.
  for (let i = 0; i < 2; i++) {
    f.timeNs = (NOW_NS - 60_000_000_000n + BigInt(i) * 123_456_789n + 7n).toString()
    f.observedNs = i === 0 ? '0' : (NOW_NS - 59_000_000_001n).toString()
    f.severityNumber = 17 + i
    f.severityText = `ERR-${i}`
    f.message = `disk "full"\non /var ✓ ${i}`
    f.source = `src-${i}`
    f.attrKeys.length = 0
    f.attrValues.length = 0
    f.attrKeys.push('http.status', 'user')
    f.attrValues.push(`50${i}`, `alice-${i}`)
    f.attrCount = 2
    f.resourceJson = `{"service.name":"web-${i}"}`
    f.scopeName = `scope-${i}`
    f.scopeVersion = `1.${i}`
    f.traceId = `0af7651916cd43dd8448eb211c80319${i}`
    f.spanId = `b7ad6b716920333${i}`
    f.flags = 1 + i
    // The first row carries the caller's event id (legacy route), the second derives it from the batch id.
    f.eventId = i === 0 ? 'caller-id' : ''
    w.write(f)
    expected.push({
      workspace_id: WS, resource_id: RID, received_at: RECEIVED, batch_id: `${BASE_ID}00000000`,
      timestamp: f.timeNs, observed_timestamp: f.observedNs, event_id: i === 0 ? 'caller-id' : `${BASE_ID}0000000${i}`,
      severity_number: f.severityNumber, severity_text: f.severityText, message: f.message, source: f.source,
      attributes: { 'http.status': `50${i}`, user: `alice-${i}` }, resource_attributes: { 'service.name': `web-${i}` },
      scope_name: f.scopeName, scope_version: f.scopeVersion, trace_id: f.traceId, span_id: f.spanId, flags: f.flags,
    })
  }
  const { data } = w.finish()
  const stored = readStoredRows(data)
  t.same(stored, expected, 'the reader reads what the writer wrote')
  t.same(Object.keys(stored[0] as StoredRow), OLD_PAYLOAD, 'in payload order')
  t.same(storedRowHead(data), { workspaceId: WS, resourceId: RID, receivedNs: RECEIVED })

  // Through the insert path the loader uses (Native blocks, columns in table order).
  await store.insertJsonRows('logs', data, 'row-model-test', ROW_FORMATS.native)
  const select = LOG_COLUMNS.map((c) => (c.kind === 'ns' ? `toString(toUnixTimestamp64Nano(${c.name})) AS ${c.name}_text` : c.name)).join(', ')
  const back = (await store.query<Record<string, unknown>>(`SELECT ${select} FROM ${db}.logs WHERE resource_id = {rid:UUID} ORDER BY timestamp`, { rid: RID })).rows
  const asStored = back.map((r) => Object.fromEntries(OLD_PAYLOAD.map((name) => [name, r[name] ?? r[`${name}_text`]])))
  t.same(asStored, expected, 'every column lands in its own column')

  const filter: LogFilter = { workspaceId: WS, resourceIds: [RID], startNs: null, endNs: null, minSeverity: null, text: null, traceId: null }
  const page = await new LogSearch({ store }).page({ filter, limit: 10, after: null, hintNs: null })
  const iso = (ns: string) => {
    const n = BigInt(ns)
    return new Date(Number(n / 1_000_000n)).toISOString().replace(/\.\d{3}Z$/, `.${(n % 1_000_000_000n).toString().padStart(9, '0')}Z`)
  }
  // A derived id is shown with the line's time in front (query/event-id.ts); the caller's as given.
  const events: LogEvent[] = expected.map((r) => ({
    event_id: r.event_id === 'caller-id' ? r.event_id : BigInt(r.timestamp).toString(16).padStart(16, '0') + r.event_id, resource_id: r.resource_id, timestamp: iso(r.timestamp),
    observed_timestamp: r.observed_timestamp === '0' ? null : iso(r.observed_timestamp), received_at: iso(r.received_at),
    severity: 'ERROR', severity_text: r.severity_text, severity_number: r.severity_number, message: r.message, source: r.source,
    attributes: r.attributes, resource_attributes: r.resource_attributes, scope_name: r.scope_name, scope_version: r.scope_version,
    trace_id: r.trace_id, span_id: r.span_id, flags: r.flags,
  }))
  t.same(page.events, [...events].reverse(), 'search returns every field, newest first')
  // The routes send JSON: the key order is part of the answer.
  t.same(page.events.map((e) => Object.keys(e)), events.map((e) => Object.keys(e)))

  const tail = stored.map((r) => toEvent(eventRowOf(r)))
  t.same(tail, events, 'the tail reads the stored rows as search reads the table')
  t.equal(JSON.stringify(tail), JSON.stringify(events), 'byte for byte')
  const q = receivedQuery(db, filter, BigInt(RECEIVED), BigInt(RECEIVED) + 1n, null, 10)
  const caughtUp = (await store.query<EventRow>(q.sql, q.params)).rows.map(toEvent)
  t.equal(JSON.stringify(caughtUp.sort((a, b) => a.timestamp.localeCompare(b.timestamp))), JSON.stringify(events), "the tail's catch-up query reads the same")
})
