// The ClickHouse cluster layout (LOOKOUT_CLICKHOUSE_LAYOUT=cluster). No
// ClickHouse server runs here (Debian's is 18.16, without DateTime64 or Map),
// so the layout is checked two ways:
// - the DDL the migrations send: ON CLUSTER everywhere, ReplicatedMergeTree on
//   the shards with Keeper-side deduplication, a Distributed table with a
//   deterministic sharding key;
// - the same schema on the real engine (chdb 26.x) configured with a one-shard
//   cluster whose shard is this process, so the Distributed table forwards
//   locally. chdb runs no Keeper and no distributed DDL queue, so the DDL goes
//   through a stand-in that drops ON CLUSTER and maps ReplicatedMergeTree (with
//   its Keeper dedup window) to MergeTree (with its local one). Everything else
//   is the production path: inserts through the Distributed table with the
//   cluster insert settings, the loader's checks over clusterAllReplicas, and a
//   loader killed between the parts of its insert, its batch redelivered.
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from 'chdb'
import { Broker, DecoderPool, IngestService, migrateLogStore, openLogStore, type LogStore, type QueryParams, type QueryResult, type RowBody, type RowFormat } from '../../ingest/internal.ts'
import { knownEventIds, storedBatchRows, storedEventIds } from '../../ingest/store/stored.ts'
import { ManagedNats } from '../../deploy/index.ts'
import { renderClusterSchema } from '../../deploy/clickhouse/render-schema.ts'
import { Ledger, formatReport } from './lib/ledger.ts'
import { LoaderProcess } from './lib/loader-process.ts'
import { twoDays } from './lib/two-days.ts'

const dir = mkdtempSync(join(tmpdir(), 'lookout-cluster-'))
const dataDir = join(dir, 'clickhouse')
const config = join(dir, 'config.xml')
// The shard is "local" when its host and port are this server's own (tcp_port):
// the Distributed table then writes and reads in-process, nothing listens.
writeFileSync(config, `<clickhouse>
  <tcp_port>9000</tcp_port>
  <remote_servers>
    <lookout>
      <shard><internal_replication>true</internal_replication><replica><host>127.0.0.1</host><port>9000</port></replica></shard>
    </lookout>
  </remote_servers>
</clickhouse>
`)
// The first connection to a data directory configures the engine; the store's own connection joins it.
const session = new Session(dataDir, { connectionArgs: [`--config-file=${config}`] })
const inner = openLogStore({ path: dataDir, layout: 'cluster', cluster: 'lookout' })
const sent: string[] = []
/** The real store; its DDL is recorded as sent and run through the stand-in. */
class StandInStore implements LogStore {
  readonly embedded = inner.embedded
  readonly database = inner.database
  readonly cluster = inner.cluster
  command(sql: string, params?: QueryParams): Promise<void> {
    sent.push(sql)
    return inner.command(standIn(sql), params)
  }
  query<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>> {
    return inner.query<T>(sql, params)
  }
  insertJsonRows(table: string, body: RowBody, dedupToken: string, format?: RowFormat): Promise<void> {
    return inner.insertJsonRows(table, body, dedupToken, format)
  }
  ping(): Promise<boolean> {
    return inner.ping()
  }
  close(): Promise<void> {
    return inner.close()
  }
}
const store: LogStore = new StandInStore()
t.teardown(async () => {
  await inner.close()
  session.close()
  rmSync(dir, { recursive: true, force: true })
})

function standIn(sql: string): string {
  return sql
    .replace(/ ON CLUSTER '[^']+'/g, '')
    .replace(/ReplicatedMergeTree\('[^']*', '\{replica\}'\)/g, 'MergeTree')
    .replace('replicated_deduplication_window = 10000, replicated_deduplication_window_seconds = 604800', 'non_replicated_deduplication_window = 10000')
}

/** A hang shows up as a failure with a reason, not as the file's timeout. */
async function within<T>(p: Promise<T> | null, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms)
  })
  try {
    return await Promise.race([p ?? Promise.reject(new Error(what)), late])
  } finally {
    clearTimeout(timer)
  }
}

const ws = '11111111-1111-4111-8111-111111111111'

t.test('migrations: every statement ON CLUSTER, replicated shards, a Distributed table', async (t) => {
  t.ok(await migrateLogStore(store, { retentionDays: 7, layout: 'cluster', cluster: 'lookout' }) >= 1, 'migrations applied')
  const ddl = sent.filter((s) => /^\s*(CREATE|ALTER)/.test(s))
  t.ok(ddl.length >= 4)
  for (const s of ddl) t.match(s, / ON CLUSTER 'lookout'/, s.replace(/\s+/g, ' ').slice(0, 70))
  const local = ddl.find((s) => s.includes('.logs_local ON CLUSTER') && s.startsWith('CREATE')) ?? ''
  t.match(local, /ReplicatedMergeTree\('\/clickhouse\/tables\/\{shard\}\/\{database\}\/logs_local', '\{replica\}'\)/)
  t.match(local, /replicated_deduplication_window = 10000/, 'deduplication window kept in Keeper')
  t.notMatch(local, /non_replicated/)
  t.match(ddl.find((s) => s.includes('schema_migrations')) ?? '', /ReplicatedMergeTree/, 'one migration record for the whole cluster')
  t.match(ddl.find((s) => /\.logs ON CLUSTER/.test(s)) ?? '', /Distributed\('lookout', 'lookout', 'logs_local', cityHash64\(resource_id\)\)/)
  const tables = await store.query<{ name: string; engine: string }>(`SELECT name, engine FROM system.tables WHERE database = 'lookout' ORDER BY name`)
  t.same(tables.rows.map((r) => `${r.name}:${r.engine}`), ['logs:Distributed', 'logs_local:MergeTree', 'schema_migrations:MergeTree'])
  t.equal(await migrateLogStore(store, { retentionDays: 7, layout: 'cluster', cluster: 'lookout' }), 0, 'a second run applies nothing')
})

t.test('deploy/clickhouse/schema.sql is what the migrations send', async (t) => {
  const file = readFileSync(new URL('../../deploy/clickhouse/schema.sql', import.meta.url), 'utf8')
  t.equal(file, await renderClusterSchema(), 'regenerate with: node deploy/clickhouse/render-schema.ts > deploy/clickhouse/schema.sql')
  const ran = sent.filter((s) => /^\s*(CREATE|ALTER)/.test(s)).map((s) => s.replace(/\s+/g, ' ').trim())
  const listed = file.split(';').map((s) => s.replace(/--[^\n]*\n/g, '').replace(/\s+/g, ' ').trim()).filter((s) => /^(CREATE|ALTER)/.test(s))
  t.same(ran.slice(0, listed.length), listed, 'the statements the first migration run above sent')
})

t.test('inserts through the Distributed table are deduplicated by token; the checks see every replica', async (t) => {
  const rid = '22222222-2222-4222-8222-222222222222'
  const ns = String(BigInt(Date.now()) * 1_000_000n)
  const line = (batch: string, i: number) => JSON.stringify({
    workspace_id: ws, resource_id: rid, timestamp: ns, observed_timestamp: ns, received_at: ns, batch_id: batch, event_id: `${batch}-${i}`,
    severity_number: 9, severity_text: 'INFO', message: `m${i}`, source: '', attributes: {}, resource_attributes: {},
    scope_name: '', scope_version: '', trace_id: '', span_id: '', flags: 0,
  }) + '\n'
  const body = Buffer.from([0, 1, 2].map((i) => line('b1', i)).join(''))
  await store.insertJsonRows('logs', body, 'token-1')
  await store.insertJsonRows('logs', body, 'token-1')
  const n = await store.query<{ c: string }>(`SELECT count() AS c FROM lookout.logs WHERE resource_id = {rid:UUID}`, { rid })
  t.equal(Number(n.rows[0]?.c), 3, 'a repeated insert is dropped')
  t.same([...await storedBatchRows(store, ['b1', 'b2'])], [['b1', 3]], 'rows per batch')
  t.same([...await storedEventIds(store, ['b1'])].sort(), ['b1-0', 'b1-1', 'b1-2'], 'event ids of a batch')
  t.same([...await knownEventIds(store, rid, ['b1-1', 'other'])], ['b1-1'], 'known event ids of a resource')
})

t.test('a loader dies between the parts of its insert; the redelivered batch loads once through the Distributed table', async (t) => {
  const natsDir = join(dir, 'nats')
  const nats = new ManagedNats({ dir: natsDir })
  const url = await nats.start()
  const brokerOpts = { servers: [url], maxBytes: 256 * 1024 * 1024, duplicateWindowMs: 120_000, replicas: 1 }
  const broker = new Broker({ ...brokerOpts, name: 'api' })
  await broker.start()
  const pool = new DecoderPool({ threads: 1 })
  const ingest = new IngestService(pool, broker)
  t.teardown(async () => {
    await pool.close()
    await broker.close()
    await nats.stop()
  })
  const rid = '33333333-3333-4333-8333-333333333333'
  const ledger = new Ledger('cl')
  for (let i = 0; i < 10; i++) {
    const b = ledger.next(100, twoDays)
    const out = await ingest.accept({ route: 'json', format: 'json', gzip: false, body: Buffer.from(b.body), workspaceId: ws, resourceId: rid })
    if (out.ok) ledger.ack(b, 'before')
  }
  t.equal(ledger.ackedEvents, 1000, 'ten requests durably published')
  const a = new LoaderProcess({ ...brokerOpts, streamMaxBytes: brokerOpts.maxBytes, store, name: 'loader-a' })
  a.dieOnNextInsert('mid-insert')
  await a.start()
  const wrote = await within(a.died, 60_000, 'the first loader never reached its insert')
  const b = new LoaderProcess({ ...brokerOpts, streamMaxBytes: brokerOpts.maxBytes, store, name: 'loader-b' })
  await b.start()
  t.teardown(() => b.stop())
  for (let i = 0; i < 600; i++) {
    const bl = await broker.backlog()
    if (bl.pending + bl.ackPending === 0) break
    await new Promise((r) => setTimeout(r, 50))
  }
  const rep = await ledger.settle(store, rid)
  t.comment(formatReport('cluster layout, loader killed mid-insert', rep))
  // At least: a copy handed out twice (ingest/loader/recent-ids.ts) is skipped too; the ledger is the guarantee.
  t.ok(b.loader.stats.duplicatesSkipped >= wrote, `the survivor skipped the ${wrote} rows the dead loader had stored`)
  t.equal(rep.lost, 0, 'lost')
  t.equal(rep.duplicated, 0, 'duplicated')
  t.equal(rep.stored, rep.acknowledged, 'stored = acknowledged')
})
