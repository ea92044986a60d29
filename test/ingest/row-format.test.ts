// The stored row format (ingest/rows/rows.ts): decoders write Native blocks, one per
// broker message, every column in table order; lines of the two earlier formats
// (JSONCompactEachRow, as the previous version's writer wrote them, and
// JSONEachRow) read the same, and messages of those formats still in the stream
// when the upgrade lands are loaded beside new ones (the loader inserts each
// format on its own), and tailed.
import t from 'tap'
import { LOG_COLUMNS, ROW_FORMATS, SUBJECTS, parseStoredRow, readStoredRows, rowFormatOf, rowSubject, storedRowHead } from '../../ingest/internal.ts'
import { RowWriter, newRowFields, type RowFields } from '../../ingest/rows/rows.ts'
import { PreviousRowWriter } from './fixtures/previous-row-writer.ts'
import { objectRowLine } from '../helpers/object-row.ts'
import { startTestLookout } from '../helpers/lookout.ts'

const WS = '11111111-1111-4111-8111-111111111111'
const RID = '22222222-2222-4222-8222-222222222222'

function sampleFields(): RowFields {
  const f = newRowFields()
  f.timeNs = '1795486318382532328' // pinned-date: a pure encoder and decoder; no clock is read
  f.observedNs = '0'
  f.severityNumber = 17
  f.severityText = 'ERROR'
  f.message = 'disk "full"\non /var'
  f.source = 'app'
  f.attrKeys.push('http.status', 'user')
  f.attrValues.push('500', 'alice')
  f.attrCount = 2
  f.resourceJson = '{"service.name":"web"}'
  f.traceId = '0af7651916cd43dd8448eb211c80319c'
  f.spanId = 'b7ad6b7169203331'
  f.flags = 1
  return f
}

t.test('the writer writes a Native block; the earlier line formats read the same', async (t) => {
  const w = new RowWriter(WS, RID, '0123456789abcdef01234567', '1795486318791000000', 1 << 20) // pinned-date: a pure encoder and decoder; no clock is read
  const f = sampleFields()
  w.write(f)
  const { data, spans } = w.finish()
  t.equal(spans.length, 1)
  t.equal(spans[0]?.length, data.byteLength, 'the one chunk is the whole buffer')
  t.equal(data[0], LOG_COLUMNS.length, 'a block starts with its column count')
  t.equal(rowFormatOf(data), ROW_FORMATS.native)
  const [row, ...more] = readStoredRows(data)
  t.equal(more.length, 0, 'one row')
  t.same(row, {
    workspace_id: WS, resource_id: RID, received_at: '1795486318791000000', batch_id: '0123456789abcdef0123456700000000', // pinned-date: a pure encoder and decoder; no clock is read
    timestamp: '1795486318382532328', observed_timestamp: '0', event_id: '0123456789abcdef0123456700000000', // pinned-date: a pure encoder and decoder; no clock is read
    severity_number: 17, severity_text: 'ERROR', message: 'disk "full"\non /var', source: 'app',
    attributes: { 'http.status': '500', user: 'alice' }, resource_attributes: { 'service.name': 'web' },
    scope_name: '', scope_version: '', trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331', flags: 1,
  }, 'every column, nanoseconds exact')

  // The same row from the previous version's writer (JSONCompactEachRow), and as a JSONEachRow object.
  const old = new PreviousRowWriter(WS, RID, '0123456789abcdef01234567', '1795486318791000000', 1 << 20) // pinned-date: a pure encoder and decoder; no clock is read
  old.write(sampleFields())
  const compact = old.finish().data
  t.equal(rowFormatOf(compact), ROW_FORMATS.compact)
  t.same(readStoredRows(compact), [row], 'a compact line reads the same')
  const object = JSON.stringify(row).replace(/"(timestamp|observed_timestamp|received_at)":"(\d+)"/g, '"$1":$2')
  t.equal(rowFormatOf(Buffer.from(object)), ROW_FORMATS.objects)
  t.same(parseStoredRow(object), row, 'an object line reads the same')
  const head = { workspaceId: WS, resourceId: RID, receivedNs: '1795486318791000000' } // pinned-date: a pure encoder and decoder; no clock is read
  t.same([storedRowHead(data), storedRowHead(compact), storedRowHead(Buffer.from(object))], [head, head, head], 'the head of each format')
})

t.test('rows are cut into blocks of bounded size, each a whole number of rows with its own id', async (t) => {
  // A 1 KiB start size and 4 KiB chunks: the columns grow many times on the way.
  const w = new RowWriter(WS, RID, '0123456789abcdef01234567', '1795486318791000000', 4096, 1024) // pinned-date: a pure encoder and decoder; no clock is read
  const f = newRowFields()
  f.timeNs = '1795486318382532328' // pinned-date: a pure encoder and decoder; no clock is read
  const written: string[] = []
  for (let i = 0; i < 200; i++) {
    // Multi-byte characters: the chunk bound counts bytes, not characters.
    f.message = `row ${i} ` + 'é€😀'.repeat(i % 7 * 10)
    w.write(f)
    written.push(f.message)
  }
  const { data, spans } = w.finish()
  t.ok(spans.length > 5, `${spans.length} chunks`)
  const read: string[] = []
  let end = 0
  for (const [n, s] of spans.entries()) {
    t.equal(s.offset, end, 'chunks are contiguous')
    end = s.offset + s.length
    const rows = readStoredRows(data.subarray(s.offset, end))
    t.equal(rows.length, s.rows, 'a chunk is one block of its rows')
    t.equal(s.id, '0123456789abcdef01234567' + n.toString(16).padStart(8, '0'))
    // A chunk passes the bound by at most its last row (and the block's column heads).
    const last = Buffer.byteLength(rows.at(-1)?.message ?? '') + 300
    t.ok(s.length - last < 4096 + 600, `cut once past the bound (${s.length} bytes)`)
    for (const row of rows) {
      t.equal(row.batch_id, s.id, 'each row carries its chunk id')
      read.push(row.message)
    }
  }
  t.equal(end, data.byteLength, 'the buffer holds exactly the chunks')
  t.same(read, written, 'every row, in order, characters intact')
  t.same(new RowWriter(WS, RID, '0123456789abcdef01234567', '0', 4096).finish().spans, [], 'no row, no chunk')
})

t.test('messages of the earlier formats in the stream are loaded and tailed beside new ones', async (t) => {
  const lk = await startTestLookout()
  t.teardown(() => lk.stop())
  const rid = await lk.resource('formats')
  const cloud = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  const tail = await fetch(`${lk.url}${cloud}/tail`, { headers: { authorization: `Bearer ${lk.token}` } })
  t.equal(tail.status, 200)
  const reader = (tail.body as ReadableStream<Uint8Array>).getReader()
  t.teardown(() => reader.cancel().catch(() => undefined))

  const now = BigInt(Date.now()) * 1_000_000n
  let old = ''
  for (let i = 0; i < 3; i++) {
    old += objectRowLine({
      workspaceId: lk.workspaceId, resourceId: rid, receivedNs: now, timestampNs: now - BigInt(i), batchId: 'oldformat0000000000000000',
      eventId: `old-${i}`, message: `written before the compact format ${i}`, attributes: { k: `v${i}` },
    })
  }
  // The previous version's backlog: its writer's JSONCompactEachRow chunks, two messages.
  const previous = new PreviousRowWriter(lk.workspaceId, rid, 'c0ffee0000000000000000aa', now.toString(), 256)
  const f = newRowFields()
  for (let i = 0; i < 4; i++) {
    f.timeNs = (now - 10n - BigInt(i)).toString()
    f.message = `written by the previous writer, compact format ${i}`
    f.severityText = 'WARN'
    f.severityNumber = 13
    f.attrKeys[0] = 'k'
    f.attrValues[0] = `c${i}`
    f.attrCount = 1
    previous.write(f)
  }
  const backlog = previous.finish()
  t.ok(backlog.spans.length > 1, 'several compact messages')
  // Rows are published per workspace and resource (what the live tail subscribes to).
  await lk.lookout.broker.publish(rowSubject(false, lk.workspaceId, rid), Buffer.from(old), 'oldformat0000000000000000', 3)
  for (const s of backlog.spans) {
    await lk.lookout.broker.publish(rowSubject(false, lk.workspaceId, rid), backlog.data.subarray(s.offset, s.offset + s.length), s.id, s.rows)
  }
  const r = await lk.req('POST', cloud, { events: [{ message: 'written in the Native format', severity: 'WARN', attributes: { k: 'new' } }] })
  t.equal(r.status, 200)

  const rows = await lk.waitRows(rid, 8, 60_000)
  t.same(rows.map((x) => x.message).sort(), [
    'written before the compact format 0', 'written before the compact format 1', 'written before the compact format 2',
    'written by the previous writer, compact format 0', 'written by the previous writer, compact format 1',
    'written by the previous writer, compact format 2', 'written by the previous writer, compact format 3', 'written in the Native format',
  ], 'all three formats stored, each row once')
  const page = await lk.req('GET', `${cloud}?q=format`)
  t.equal(page.body.events.length, 8)
  const oldest = page.body.events.find((e: { event_id: string }) => e.event_id === 'old-2')
  t.match(oldest, { attributes: { k: 'v2' }, severity: 'INFO' }, 'the old row reads back whole')
  // Its derived id is shown with the line's time in front (query/event-id.ts).
  const compactRow = page.body.events.find((e: { event_id: string }) => e.event_id.slice(16) === 'c0ffee0000000000000000aa00000003')
  t.match(compactRow, { attributes: { k: 'c3' }, severity: 'WARN', message: 'written by the previous writer, compact format 3' }, 'a compact row reads back whole')
  t.match(compactRow?.event_id, /^[0-9a-f]{16}c0ffee0000000000000000aa00000003$/)

  // The tail parsed every message.
  const seen: string[] = []
  const decoder = new TextDecoder()
  let text = ''
  const deadline = Date.now() + 30_000
  while (seen.length < 8 && Date.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
    let cut
    while ((cut = text.indexOf('\n\n')) !== -1) {
      const block = text.slice(0, cut)
      text = text.slice(cut + 2)
      for (const l of block.split('\n')) if (l.startsWith('data:')) seen.push((JSON.parse(l.slice(5)) as { message: string }).message)
    }
  }
  t.same(seen.sort(), rows.map((x) => x.message).sort(), 'the live tail shows the rows of all three formats')

  // A backlog written by an older version sits on the bare subject: still loaded.
  const rid2 = await lk.resource('bare-subject')
  const bareNs = BigInt(Date.now()) * 1_000_000n
  const line = objectRowLine({
    workspaceId: lk.workspaceId, resourceId: rid2, receivedNs: bareNs, timestampNs: bareNs, batchId: 'baresubject00000000000000',
    eventId: 'bare-0', message: 'from the bare subject',
  })
  await lk.lookout.broker.publish(SUBJECTS.rows, Buffer.from(line), 'baresubject00000000000000', 1)
  const bare = await lk.waitRows(rid2, 1, 60_000)
  t.same(bare.map((r) => r.message), ['from the bare subject'])
})
