// The stored row format (ingest/rows.ts): decoders write JSONCompactEachRow in
// ROW_COLUMNS order; lines of the earlier JSONEachRow format read the same, and
// a message of that format still in the stream when the change lands is loaded
// beside new ones (the loader inserts each format on its own), and tailed.
import t from 'tap'
import { ROW_COLUMNS, ROW_FORMATS, SUBJECTS, parseStoredRow, rowFormatOf, rowSubject, storedRowIds } from '../../ingest/index.ts'
import { RowWriter, newRowFields } from '../../ingest/rows.ts'
import { objectRowLine } from '../helpers/object-row.ts'
import { startTestLookout } from '../helpers/lookout.ts'

const WS = '11111111-1111-4111-8111-111111111111'
const RID = '22222222-2222-4222-8222-222222222222'

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
t.test('the writer writes compact rows; both formats read back the same', async (t) => {
  const w = new RowWriter(WS, RID, '0123456789abcdef01234567', '1795486318791000000', 1 << 20)
  const f = newRowFields()
  f.timeNs = '1795486318382532328'
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
  w.write(f)
  const { data, spans } = w.finish()
  t.equal(spans.length, 1)
  t.equal(spans[0]?.length, data.byteLength, 'the one chunk is the whole buffer')
  const line = Buffer.from(data).toString().replace(/\n$/, '')
  t.equal(line.split('\n').length, 1, 'one line per row: a newline in a value is escaped')
  const array = JSON.parse(line) as unknown[]
  t.ok(Array.isArray(array), 'a JSON array')
  t.equal(array.length, ROW_COLUMNS.length, 'one value per column')
  t.equal(rowFormatOf(Buffer.from(line)), ROW_FORMATS.compact)

  // pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
  const row = parseStoredRow(line)
  t.same(row, {
    workspace_id: WS, resource_id: RID, received_at: '1795486318791000000', batch_id: '0123456789abcdef0123456700000000',
    timestamp: '1795486318382532328', observed_timestamp: '0', event_id: '0123456789abcdef0123456700000000',
    severity_number: 17, severity_text: 'ERROR', message: 'disk "full"\non /var', source: 'app',
    attributes: { 'http.status': '500', user: 'alice' }, resource_attributes: { 'service.name': 'web' },
    scope_name: '', scope_version: '', trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331', flags: 1,
  }, 'every column, nanoseconds exact')
  // The same row as a JSONEachRow object, its times as bare integers (as the earlier writer wrote them).
  const object = JSON.stringify(row).replace(/"(timestamp|observed_timestamp|received_at)":"(\d+)"/g, '"$1":$2')
  t.equal(rowFormatOf(Buffer.from(object)), ROW_FORMATS.objects)
  t.same(parseStoredRow(object), row, 'an object line reads the same')
  t.same(storedRowIds(line), { resourceId: RID, eventId: row.event_id })
  t.same(storedRowIds(object), storedRowIds(line))
})

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
t.test('rows are cut into chunks of bounded size, each a whole number of lines with its own id', async (t) => {
  // A 1 KiB start buffer and 4 KiB chunks: the buffer grows many times on the way.
  const w = new RowWriter(WS, RID, '0123456789abcdef01234567', '1795486318791000000', 4096, 1024)
  const f = newRowFields()
  f.timeNs = '1795486318382532328'
  let written = ''
  for (let i = 0; i < 200; i++) {
    // Multi-byte characters: the chunk bound counts bytes, not characters.
    f.message = `row ${i} ` + 'é€😀'.repeat(i % 7 * 10)
    w.write(f)
    written += f.message
  }
  const { data, spans } = w.finish()
  t.ok(spans.length > 5, `${spans.length} chunks`)
  let read = ''
  let rows = 0
  let end = 0
  for (const [n, s] of spans.entries()) {
    t.equal(s.offset, end, 'chunks are contiguous')
    end = s.offset + s.length
    const text = Buffer.from(data.buffer, data.byteOffset + s.offset, s.length).toString()
    t.ok(text.endsWith('\n'), 'a chunk ends with a whole line')
    const lines = text.slice(0, -1).split('\n')
    t.equal(lines.length, s.rows)
    t.equal(s.id, '0123456789abcdef01234567' + n.toString(16).padStart(8, '0'))
    // A chunk passes the bound by at most its last line.
    t.ok(s.length - Buffer.byteLength(lines.at(-1) as string) - 1 < 4096, 'cut once past the bound')
    for (const line of lines) {
      const row = parseStoredRow(line)
      t.equal(row.batch_id, s.id, 'each row carries its chunk id')
      read += row.message
      rows++
    }
  }
  t.equal(end, data.byteLength, 'the buffer holds exactly the chunks')
  t.equal(rows, 200)
  t.equal(read, written, 'every row, in order, characters intact')
  t.same(new RowWriter(WS, RID, '0123456789abcdef01234567', '0', 4096).finish().spans, [], 'no row, no chunk')
})

t.test('a message of the earlier format in the stream is loaded and tailed beside new ones', async (t) => {
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
  // Rows are published per workspace and resource (what the live tail subscribes to).
  await lk.lookout.broker.publish(rowSubject(false, lk.workspaceId, rid), Buffer.from(old), 'oldformat0000000000000000', 3)
  const r = await lk.req('POST', cloud, { events: [{ message: 'written in the compact format', severity: 'WARN', attributes: { k: 'new' } }] })
  t.equal(r.status, 200)

  const rows = await lk.waitRows(rid, 4, 60_000)
  t.same(rows.map((x) => x.message).sort(), [
    'written before the compact format 0', 'written before the compact format 1', 'written before the compact format 2', 'written in the compact format',
  ], 'both formats stored, each row once')
  const page = await lk.req('GET', `${cloud}?q=format`)
  t.equal(page.body.events.length, 4)
  const oldest = page.body.events.find((e: { event_id: string }) => e.event_id === 'old-2')
  t.match(oldest, { attributes: { k: 'v2' }, severity: 'INFO' }, 'the old row reads back whole')

  // The tail parsed both messages.
  const seen: string[] = []
  const decoder = new TextDecoder()
  let text = ''
  const deadline = Date.now() + 30_000
  while (seen.length < 4 && Date.now() < deadline) {
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
  t.same(seen.sort(), rows.map((x) => x.message).sort(), 'the live tail shows the lines of both formats')

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
