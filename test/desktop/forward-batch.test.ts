// The forwarding queue's pure parts: cutting stored rows into cloud-sized
// batches (Native blocks, and lines queued by an earlier version), and a stored
// row as a cloud JSON batch event.
import t from 'tap'
import { splitRows } from '../../desktop/forward-queue.ts'
import { cloudBatchBody, cloudEventOf, isoFromNs } from '../../desktop/forward-batch.ts'
import { encodeRows, parseStoredRow, readStoredRows } from '../../ingest/internal.ts'

const row = (i: number, message = `m${i}`) => JSON.stringify({
  workspace_id: '11111111-1111-4111-8111-111111111111', resource_id: '22222222-2222-4222-8222-222222222222', received_at: 1, batch_id: 'b',
}).slice(0, -1) + `,"timestamp":1795255200123456789,"observed_timestamp":0,"event_id":"e${i}","severity_number":17,"severity_text":"",` + // pinned-date: a pure conversion of a stored row; no clock is read
  `"message":${JSON.stringify(message)},"source":"web","attributes":{"http.status":"500"},"resource_attributes":{"service.name":"api"},` +
  `"scope_name":"","scope_version":"","trace_id":"0123456789abcdef0123456789abcdef","span_id":"","flags":0}\n`
const bytes = (lines: string[]) => Buffer.from(lines.join(''))
/** The same rows as the Native block decoders write now. */
const block = (lines: string[]) => encodeRows(lines.map((l) => parseStoredRow(l.trimEnd())))

t.test('lines of an earlier version are cut at line ends: at most 1000 events and about 1 MiB per batch', async (t) => {
  const lines = Array.from({ length: 2500 }, (_, i) => row(i))
  const pieces = splitRows(bytes(lines))
  t.same(pieces.map((p) => p.events), [1000, 1000, 500])
  t.same(Buffer.concat(pieces.map((p) => p.rows)), bytes(lines), 'every byte is in a piece, in order')
  const exactly = splitRows(bytes(lines.slice(0, 1000)))
  t.same(exactly.map((p) => p.events), [1000], '1000 events: one batch')
  t.same(splitRows(bytes(lines.slice(0, 1001))).map((p) => p.events), [1000, 1], '1001 events: two')

  const big = Array.from({ length: 5 }, (_, i) => row(i, 'x'.repeat(300_000)))
  const bySize = splitRows(bytes(big))
  t.same(bySize.map((p) => p.events), [3, 2], 'cut before passing 1 MiB')
  for (const p of bySize) t.ok(p.rows.byteLength <= 1024 * 1024)
  const huge = splitRows(bytes([row(0, 'y'.repeat(2_000_000)), row(1)]))
  t.same(huge.map((p) => p.events), [1, 1], 'a line larger than the bound is a batch of its own')
  t.same(splitRows(Buffer.alloc(0)), [], 'nothing: no batch')
})

t.test('Native blocks are cut into blocks of at most 1000 events and about 1 MiB', async (t) => {
  const lines = Array.from({ length: 2500 }, (_, i) => row(i))
  const pieces = splitRows(block(lines))
  t.same(pieces.map((p) => p.events), [1000, 1000, 500])
  t.same(pieces.flatMap((p) => readStoredRows(p.rows)), lines.map((l) => parseStoredRow(l.trimEnd())), 'every row once, in order')
  const big = Array.from({ length: 5 }, (_, i) => row(i, 'x'.repeat(300_000)))
  const bySize = splitRows(block(big))
  t.same(bySize.map((p) => p.events), [3, 2], 'cut before passing 1 MiB')
  for (const p of bySize) t.ok(p.rows.byteLength <= 1024 * 1024)
  t.same(splitRows(block([row(0, 'y'.repeat(2_000_000)), row(1)])).map((p) => p.events), [1, 1], 'a row larger than the bound is a batch of its own')
})

t.test('a stored row becomes a cloud JSON batch event', async (t) => {
  const e = cloudEventOf(parseStoredRow(row(7).trimEnd()))
  t.same(e, {
    message: 'm7',
    timestamp: '2026-11-21T10:00:00.123456789Z', // pinned-date: a pure conversion of a stored row; no clock is read
    severity: 'ERROR',
    source: 'web',
    attributes: { 'http.status': '500', 'resource.service.name': 'api' },
    trace_id: '0123456789abcdef0123456789abcdef',
    span_id: '',
  }, 'nanoseconds kept, severity named from its number, resource attributes prefixed')
  t.equal(isoFromNs('0'), null, 'unknown time: null (the cloud uses its receive time)')
  t.equal(isoFromNs('1000000001'), '1970-01-01T00:00:01.000000001Z') // pinned-date: a pure conversion of a stored row; no clock is read
  const long = cloudEventOf(parseStoredRow(row(1, 'z'.repeat(70_000)).trimEnd()))
  t.equal(long.message.length, 65536, 'cut to the cloud message limit')
  const body = JSON.parse(cloudBatchBody(bytes([row(1), row(2)])))
  t.same(body.events.map((x: { message: string }) => x.message), ['m1', 'm2'])
  t.equal(cloudBatchBody(bytes([row(1), row(2)])), cloudBatchBody(bytes([row(1), row(2)])), 'the same rows give the same body')
  t.equal(cloudBatchBody(block([row(1), row(2)])), cloudBatchBody(bytes([row(1), row(2)])), 'a Native block gives the body its lines gave')
})
