// Migration 7: an embedded store made with 8192-row granules is rebuilt with
// INDEX_GRANULARITY once, keeping every row, index and table setting, and a
// rebuild cut short is finished by the next start.
import t from 'tap'
import { createStatement, INDEX_GRANULARITY, migrateLogStore, regranulate, SPARE_TABLE, tableGranularity, twinStatement } from '../../ingest/internal.ts'
import { startTestLookout } from '../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
const store = lk.lookout.store
const db = store.database
const DAY = 86_400_000_000_000n

const indexes = async (): Promise<string> => (await store.query<{ s: string }>(
  `SELECT arrayStringConcat(groupArray(name || ' ' || expr || ' ' || type_full), '; ') AS s FROM (SELECT * FROM system.data_skipping_indices WHERE database = {db:String} AND table = 'logs' ORDER BY name)`, { db })).rows[0]?.s ?? ''
const ddlTail = async (): Promise<string> => {
  const ddl = await createStatement(store, 'logs')
  return ddl.slice(ddl.indexOf('ENGINE')).replace(/index_granularity = \d+/, '')
}
const spareExists = async (): Promise<boolean> => Number((await store.query<{ n: string }>(
  `SELECT count() AS n FROM system.tables WHERE database = {db:String} AND name = {t:String}`, { db, t: SPARE_TABLE })).rows[0]?.n) > 0

// Three days of lines, so the rebuild moves three partitions.
const rid = await lk.resource('granules')
const now = BigInt(Date.now()) * 1_000_000n
let body = ''
for (let d = 2; d >= 0; d--) {
  for (let i = 0; i < 100; i++) {
    const ts = String(now - BigInt(d) * DAY - BigInt(i) * 1_000_000n)
    body += JSON.stringify({ workspace_id: lk.workspaceId, resource_id: rid, timestamp: ts, observed_timestamp: ts, received_at: ts, batch_id: `g${d}`, event_id: `g-${d}-${i}`, severity_number: 9, severity_text: 'INFO', message: `line ${d} ${i}`, source: '', attributes: { day: String(d) }, resource_attributes: { 'service.name': 'granules' }, scope_name: '', scope_version: '', trace_id: '', span_id: '', flags: 0 }) + '\n'
  }
}
await store.insertJsonRows('logs', Buffer.from(body), 'granules-test')
const ids = (await lk.rows(rid)).map((r) => r.event_id).sort()

t.test('a new table is made with the finer granules', async (t) => {
  t.equal(INDEX_GRANULARITY < 8192, true, 'finer than the engine default')
  t.equal(await tableGranularity(store, 'logs'), INDEX_GRANULARITY)
  t.equal(ids.length, 300)
})

t.test('a table from before migration 7 is rebuilt at start, keeping rows, indexes and settings', async (t) => {
  const before = { indexes: await indexes(), tail: await ddlTail() }
  // The table as the earlier migrations left it: 8192-row granules.
  t.equal(await regranulate(store, 8192), true)
  t.equal(await tableGranularity(store, 'logs'), 8192)
  await store.command(`ALTER TABLE ${db}.schema_migrations DELETE WHERE version = 7 SETTINGS mutations_sync = 1`)
  t.equal(await migrateLogStore(store, { retentionDays: 7 }), 1, 'migration 7 applied at start')
  t.equal(await tableGranularity(store, 'logs'), INDEX_GRANULARITY, 'the table has the finer granules')
  t.same((await lk.rows(rid)).map((r) => r.event_id).sort(), ids, 'every row stays, once')
  t.equal(await indexes(), before.indexes, 'the same indexes')
  t.equal(await ddlTail(), before.tail, 'the same engine, keys, TTL and settings')
  t.notOk(await spareExists(), 'no spare table left')
  t.equal(await migrateLogStore(store, { retentionDays: 7 }), 0, 'and it is recorded')
  t.equal(await regranulate(store, INDEX_GRANULARITY), false, 'a table that has them is left alone')
  // The rebuilt table takes inserts and merges its moved parts with the new granules.
  await store.insertJsonRows('logs', Buffer.from(body.replaceAll('"g-', '"h-')), 'granules-after')
  await store.command(`OPTIMIZE TABLE ${db}.logs FINAL`)
  const parts = await store.query<{ rows: string; marks: string }>(
    `SELECT sum(rows) AS rows, sum(marks) AS marks FROM system.parts WHERE database = {db:String} AND table = 'logs' AND active`, { db })
  t.equal(Number(parts.rows[0]?.rows), 600)
  t.same((await lk.rows(rid)).length, 600, 'the lines inserted after the rebuild are read back')
})

t.test('a rebuild cut short before the swap is finished by the next start', async (t) => {
  await regranulate(store, 8192)
  await store.command(`ALTER TABLE ${db}.schema_migrations DELETE WHERE version = 7 SETTINGS mutations_sync = 1`)
  // What a crash between the attach and the swap leaves: a spare table holding the same parts.
  await store.command(twinStatement(await createStatement(store, 'logs'), db, SPARE_TABLE, 8192))
  const first = (await store.query<{ id: string }>(`SELECT min(partition_id) AS id FROM system.parts WHERE database = {db:String} AND table = 'logs' AND active`, { db })).rows[0]?.id
  await store.command(`ALTER TABLE ${db}.${SPARE_TABLE} ATTACH PARTITION ID '${first}' FROM ${db}.logs`)
  t.ok(await spareExists())
  t.equal(await migrateLogStore(store, { retentionDays: 7 }), 1)
  t.equal(await tableGranularity(store, 'logs'), INDEX_GRANULARITY)
  t.notOk(await spareExists(), 'the spare table is gone')
  t.equal((await lk.rows(rid)).length, 600, 'every row stays, once')
})
