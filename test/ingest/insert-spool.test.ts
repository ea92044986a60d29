// The embedded store hands rows to the engine through a file in its data
// directory (ingest/store/insert-spool.ts): every row arrives, the deduplication token
// still holds, a bad body is still a data error, no file outlives its insert or
// a crash, and a data directory the engine would read as a pattern puts its
// spool in the temporary folder. On a real embedded engine.
import t, { type Test } from 'tap'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROW_FORMATS, migrateLogStore, openLogStore, type LogStore } from '../../ingest/index.ts'
import { RowWriter, newRowFields } from '../../ingest/rows/rows.ts'
import { isDataError } from '../../ingest/store/store-errors.ts'
import { InsertSpool } from '../../ingest/store/insert-spool.ts'
import { objectRowLine } from '../helpers/object-row.ts'

const WS = '11111111-1111-4111-8111-111111111111'
const RID = '22222222-2222-4222-8222-222222222222'
const NOW_NS = BigInt(Date.now()) * 1_000_000n
const ROWS = 2000

function nativeRows(batch: string, count: number): Uint8Array {
  const w = new RowWriter(WS, RID, batch, NOW_NS.toString(), 4 << 20)
  const f = newRowFields()
  for (let i = 0; i < count; i++) {
    f.timeNs = (NOW_NS - BigInt(i) * 1000n).toString()
    f.message = `row ${i} "quoted"\nsecond line ✓`
    f.attrKeys.length = 0
    f.attrValues.length = 0
    f.attrKeys.push('n')
    f.attrValues.push(String(i))
    f.attrCount = 1
    w.write(f)
  }
  return w.finish().data
}

async function opened(t: Test, dir: string): Promise<LogStore> {
  const store = openLogStore({ path: dir })
  t.teardown(() => store.close())
  await migrateLogStore(store, { retentionDays: 7 })
  return store
}

async function count(store: LogStore, where = '1'): Promise<number> {
  const r = await store.query<{ n: string }>(`SELECT count() AS n FROM ${store.database}.logs WHERE ${where}`)
  return Number(r.rows[0]?.n)
}

t.test('rows go through the spool whole, once per token, and leave nothing behind', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-spool-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const spool = join(dir, 'insert-spool')
  // What a process that crashed mid-insert left.
  mkdirSync(spool)
  writeFileSync(join(spool, '999999999-0.rows'), 'leftover')
  const store = await opened(t, dir)
  t.same(readdirSync(spool), [], 'an earlier process\'s file is gone once the engine starts')

  const body = nativeRows('0123456789abcdef01234567', ROWS)
  await store.insertJsonRows('logs', body, 'spool-a', ROW_FORMATS.native)
  t.equal(await count(store), ROWS, 'every row arrives')
  const one = await store.query<{ message: string; n: string }>(`SELECT message, attributes['n'] AS n FROM ${store.database}.logs WHERE attributes['n'] = '1234'`)
  t.same(one.rows, [{ message: 'row 1234 "quoted"\nsecond line ✓', n: '1234' }], 'with its values as written')
  t.same(readdirSync(spool), [], 'the file is removed after its insert')

  await store.insertJsonRows('logs', body, 'spool-a', ROW_FORMATS.native)
  t.equal(await count(store), ROWS, 'the same token again adds nothing')

  const objects = objectRowLine({ workspaceId: WS, resourceId: RID, receivedNs: NOW_NS, timestampNs: NOW_NS, batchId: 'objects-batch', eventId: 'objects-1', message: 'objects layout' })
  await store.insertJsonRows('logs', Buffer.from(objects), 'spool-b', ROW_FORMATS.objects)
  t.equal(await count(store, "message = 'objects layout'"), 1, 'the objects layout arrives too')

  const err = await store.insertJsonRows('logs', Buffer.from('["not", "a row"]\n'), 'spool-c', ROW_FORMATS.compact).then(() => null, (e: unknown) => e)
  t.ok(err instanceof Error, 'a bad body is refused')
  t.ok(isDataError(err), 'as a data error (the loader dead-letters it rather than retrying)')
  t.same(readdirSync(spool), [], 'and its file is removed too')
  const cut = await store.insertJsonRows('logs', body.subarray(0, body.byteLength - 5), 'spool-d', ROW_FORMATS.native).then(() => null, (e: unknown) => e)
  t.ok(isDataError(cut), 'a Native block that ends early is a data error too')
  t.equal(await count(store), ROWS + 1, 'nothing of it is stored')
})

t.test('a data directory with a pattern character in its path spools in the temporary folder', async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'lookout-spool-'))
  t.teardown(() => rmSync(parent, { recursive: true, force: true }))
  const dir = join(parent, 'logs{1}')
  t.equal(InsertSpool.open(join(dir, 'insert-spool')), null, 'no spool where the engine would read the path as a pattern')
  const spools = () => readdirSync(tmpdir()).filter((n) => n.startsWith('lookout-insert-spool-'))
  const before = new Set(spools())
  const store = await opened(t, dir)
  await store.insertJsonRows('logs', nativeRows('76543210fedcba9876543210', 10), 'pattern-a', ROW_FORMATS.native)
  t.equal(await count(store), 10, 'the rows arrive')
  t.notOk(existsSync(join(dir, 'insert-spool')), 'without a spool folder in the data directory')
  t.equal(spools().filter((n) => !before.has(n)).length, 1, 'a spool folder of its own in the temporary folder')
  await store.close()
  t.same(spools().filter((n) => !before.has(n)), [], 'removed at close')
})
