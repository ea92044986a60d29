// The log store's own rules: migrations are idempotent, retention follows the
// configuration, the size cap drops the oldest days first, and a message that
// can never load goes to the dead-letter stream without blocking the rest.
import t from 'tap'
import { enforceSizeCap, migrateLogStore, SUBJECTS } from '../../ingest/internal.ts'
import { startTestLookout } from '../helpers/lookout.ts'

const lk = await startTestLookout({ env: { LOOKOUT_RETENTION_DAYS: '3' } })
t.teardown(() => lk.stop())
const store = lk.lookout.store
const db = store.database

t.test('migrations run again without changes; retention comes from the configuration', async (t) => {
  t.equal(await migrateLogStore(store, { retentionDays: 3 }), 0, 'nothing left to apply')
  const ddl = (await store.query<{ statement: string }>(`SHOW CREATE TABLE ${db}.logs`)).rows[0]?.statement ?? ''
  t.match(ddl, /TTL toDateTime\(timestamp\) \+ toIntervalDay\(3\)/)
  await migrateLogStore(store, { retentionDays: 9 })
  const after = (await store.query<{ statement: string }>(`SHOW CREATE TABLE ${db}.logs`)).rows[0]?.statement ?? ''
  t.match(after, /toIntervalDay\(9\)/, 'a new retention is applied at start')
  await migrateLogStore(store, { retentionDays: 3 })
})

t.test('a data directory from before migration 3 loses the batch id filter, gets compact parts and keeps its rows', async (t) => {
  const indexes = async (): Promise<string[]> => (await store.query<{ name: string }>(
    `SELECT name FROM system.data_skipping_indices WHERE database = {db:String} AND table = 'logs' ORDER BY name`, { db })).rows.map((r) => r.name)
  t.notOk((await indexes()).includes('idx_batch_id'), 'a new table has no batch id filter')
  t.ok((await indexes()).includes('idx_event_id'), 'the event id filter stays (legacy lookups)')
  // The table as migration 2 left it, with a row in it.
  const rid = await lk.resource('upgrade')
  const now = String(BigInt(Date.now()) * 1_000_000n)
  await store.insertJsonRows('logs', Buffer.from(JSON.stringify({ workspace_id: lk.workspaceId, resource_id: rid, timestamp: now, observed_timestamp: now, received_at: now, batch_id: 'upgrade', event_id: 'upgrade-1', severity_number: 9, severity_text: 'INFO', message: 'before the upgrade', source: '', attributes: {}, resource_attributes: {}, scope_name: '', scope_version: '', trace_id: '', span_id: '', flags: 0 }) + '\n'), 'upgrade-test')
  await store.command(`ALTER TABLE ${db}.logs ADD INDEX idx_batch_id batch_id TYPE bloom_filter(0.01) GRANULARITY 1`)
  await store.command(`ALTER TABLE ${db}.schema_migrations DELETE WHERE version >= 3 SETTINGS mutations_sync = 1`)
  t.ok((await indexes()).includes('idx_batch_id'))
  t.equal(await migrateLogStore(store, { retentionDays: 3 }), 6, 'migrations 3 to 8 applied at start')
  t.notOk((await indexes()).includes('idx_batch_id'), 'the filter is gone')
  t.same((await lk.rows(rid)).map((r) => r.event_id), ['upgrade-1'], 'the rows stay')
  const ddl = (await store.query<{ statement: string }>(`SHOW CREATE TABLE ${db}.logs`)).rows[0]?.statement ?? ''
  t.match(ddl, /min_bytes_for_wide_part = 268435456/, 'inserts are written as compact parts')
  t.match(ddl, /merge_selector_base = 10/, 'merges wait for ten parts of a size')
  t.match(ddl, /min_compress_block_size = 4096/, 'columns are compressed in small blocks')
  t.equal(await migrateLogStore(store, { retentionDays: 3 }), 0, 'and it is recorded')
})

t.test('the size cap drops whole days, oldest first, and keeps the newest', async (t) => {
  const rid = await lk.resource('cap')
  const day = 86_400_000_000_000n
  const now = BigInt(Date.now()) * 1_000_000n
  let body = ''
  for (let d = 2; d >= 0; d--) {
    for (let i = 0; i < 200; i++) {
      body += JSON.stringify({ workspace_id: lk.workspaceId, resource_id: rid, timestamp: String(now - BigInt(d) * day), observed_timestamp: String(now), received_at: String(now), batch_id: `cap${d}`, event_id: `cap-${d}-${i}`, severity_number: 9, severity_text: 'INFO', message: 'x'.repeat(500) + i, source: '', attributes: {}, resource_attributes: {}, scope_name: '', scope_version: '', trace_id: '', span_id: '', flags: 0 }) + '\n'
    }
  }
  await store.insertJsonRows('logs', Buffer.from(body), 'cap-test')
  const before = await enforceSizeCap(store, 1024 ** 4)
  t.same(before.droppedPartitions, [], 'under the cap nothing is dropped')
  const parts = await store.query<{ p: string }>(`SELECT DISTINCT partition AS p FROM system.parts WHERE database = {db:String} AND table = 'logs' AND active ORDER BY p`, { db })
  t.ok(parts.rows.length >= 3, 'three daily partitions')
  const r = await enforceSizeCap(store, 1)
  t.equal(r.droppedPartitions.length, parts.rows.length - 1, 'every partition but the newest dropped')
  t.same(r.droppedPartitions, parts.rows.slice(0, -1).map((p) => p.p), 'oldest first')
  const left = await lk.rows(rid)
  t.ok(left.length > 0 && left.every((x) => String(x.event_id).startsWith('cap-0-')), 'the newest day stays')
})

t.test('a message that can never load is dead-lettered; the rest load', async (t) => {
  const rid = await lk.resource('dlq')
  const good = JSON.stringify({ workspace_id: lk.workspaceId, resource_id: rid, timestamp: String(BigInt(Date.now()) * 1_000_000n), observed_timestamp: 1, received_at: 1, batch_id: 'good', event_id: 'good-1', severity_number: 9, severity_text: 'INFO', message: 'fine', source: '', attributes: {}, resource_attributes: {}, scope_name: '', scope_version: '', trace_id: '', span_id: '', flags: 0 }) + '\n'
  const bad = good.replace(rid, 'not-a-uuid').replace('good-1', 'bad-1')
  await lk.lookout.broker.publish(SUBJECTS.rows, Buffer.from(bad), 'dlq-bad', 1)
  await lk.lookout.broker.publish(SUBJECTS.rows, Buffer.from(good), 'dlq-good', 1)
  const rows = await lk.waitRows(rid, 1)
  t.same(rows.map((r) => r.event_id), ['good-1'])
  for (let i = 0; i < 100 && (lk.lookout.loader?.stats.deadLettered ?? 0) === 0; i++) await new Promise((r) => setTimeout(r, 100))
  t.equal(lk.lookout.loader?.stats.deadLettered, 1, 'one message dead-lettered')
  const dlq = await lk.lookout.broker.jsm.streams.info(lk.lookout.broker.stream + '_DLQ')
  t.equal(dlq.state.messages, 1, 'it waits in the dead-letter stream')
  const backlog = await lk.lookout.broker.backlog()
  t.equal(backlog.pending + backlog.ackPending, 0, 'nothing is stuck in the main stream')
})
