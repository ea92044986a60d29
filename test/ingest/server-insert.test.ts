// With CLICKHOUSE_URL the loader's bytes go to a ClickHouse server over HTTP as
// they are: `INSERT INTO … (columns) FORMAT Native` with the blocks as the body
// (ingest/store/store.ts, ServerStore). No ClickHouse server runs here (Debian's is
// 18.16, without DateTime64 or Map), so a loopback HTTP endpoint stands in for
// its interface: it takes the request as a server would (the statement in the
// `query` parameter, the settings beside it, the rows as the body) and runs the
// same statement on the real engine (chdb), the body read as the format says.
import t from 'tap'
import { createServer } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROW_FORMATS, migrateLogStore, openLogStore, readStoredRows } from '../../ingest/index.ts'
import { RowWriter, newRowFields } from '../../ingest/rows/rows.ts'
import { PreviousRowWriter } from './fixtures/previous-row-writer.ts'

const WS = '11111111-1111-4111-8111-111111111111'
const RID = '22222222-2222-4222-8222-222222222222'
const NOW_NS = BigInt(Date.now()) * 1_000_000n

const dir = mkdtempSync(join(tmpdir(), 'lookout-server-insert-'))
const engine = openLogStore({ path: join(dir, 'engine') })
await migrateLogStore(engine, { retentionDays: 7 })
const INSERT = /^INSERT INTO (\w+\.\w+) \(([\w, ]+)\) FORMAT (Native|JSONCompactEachRow)$/
const seen: { query: string; token: string | null; bytes: number }[] = []
let bodies = 0

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost')
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    const query = url.searchParams.get('query') ?? ''
    const m = INSERT.exec(query)
    if (m === null) {
      res.writeHead(400).end(`Code: 62. not an insert this stand-in takes: ${query}`)
      return
    }
    const body = Buffer.concat(chunks)
    const token = url.searchParams.get('insert_deduplication_token')
    seen.push({ query, token, bytes: body.byteLength })
    const file = join(dir, `body-${bodies++}`)
    writeFileSync(file, body)
    const settings = token === null ? '' : ` SETTINGS insert_deduplication_token = '${token}'`
    engine.command(`INSERT INTO ${m[1]} (${m[2]}) SELECT * FROM file('${file}', ${m[3]})${settings}`).then(
      () => res.writeHead(200, { 'X-ClickHouse-Summary': '{}' }).end(),
      (err: unknown) => res.writeHead(500).end(String((err as Error).message)),
    )
  })
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const address = server.address() as { port: number }
const store = openLogStore({ url: `http://default:@127.0.0.1:${address.port}` })
t.teardown(async () => {
  await store.close()
  await new Promise((resolve) => server.close(resolve))
  await engine.close()
  rmSync(dir, { recursive: true, force: true })
})

function rows<W extends { write: RowWriter['write']; finish: RowWriter['finish'] }>(w: W, label: string, count: number): Uint8Array {
  const f = newRowFields()
  for (let i = 0; i < count; i++) {
    f.timeNs = (NOW_NS - BigInt(i)).toString()
    f.message = `${label} ${i} ✓`
    f.attrKeys[0] = 'n'
    f.attrValues[0] = String(i)
    f.attrCount = 1
    f.resourceJson = '{"service.name":"web"}'
    w.write(f)
  }
  return w.finish().data
}

t.test('Native blocks go over HTTP as they are, in pieces, with the columns in table order', async (t) => {
  const native = rows(new RowWriter(WS, RID, '0123456789abcdef01234567', NOW_NS.toString(), 1 << 20), 'native', 300)
  // The loader hands the store its messages' payloads in pieces, one per message.
  const pieces = [native.subarray(0, 0), native]
  await store.insertJsonRows('logs', pieces, 'server-native', ROW_FORMATS.native)
  t.match(seen.at(-1), { query: /^INSERT INTO lookout\.logs \(workspace_id, resource_id, timestamp, .*flags\) FORMAT Native$/, token: 'server-native', bytes: native.byteLength },
    'the statement names the table order, the body is the blocks')
  const back = await engine.query<{ message: string; n: string; svc: string }>(
    "SELECT message, attributes['n'] AS n, resource_attributes['service.name'] AS svc FROM lookout.logs WHERE message LIKE 'native %' ORDER BY timestamp DESC")
  t.equal(back.rows.length, 300, 'every row stored')
  t.same(back.rows[7], { message: 'native 7 ✓', n: '7', svc: 'web' })
  t.same(back.rows.map((r) => r.message), readStoredRows(native).map((r) => r.message), 'as written, in order')

  const previous = rows(new PreviousRowWriter(WS, RID, 'abcdefabcdefabcdefabcdef', NOW_NS.toString(), 1 << 20), 'compact', 5)
  await store.insertJsonRows('logs', previous, 'server-compact', ROW_FORMATS.compact)
  t.match(seen.at(-1)?.query, /^INSERT INTO lookout\.logs \(workspace_id, resource_id, received_at, batch_id, timestamp, .*\) FORMAT JSONCompactEachRow$/,
    'a message of the earlier format names its payload order')
  const old = await engine.query<{ n: string }>("SELECT count() AS n FROM lookout.logs WHERE message LIKE 'compact %'")
  t.equal(Number(old.rows[0]?.n), 5)
})
