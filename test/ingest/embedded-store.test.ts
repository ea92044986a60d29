// The embedded engine starts when it is first needed: with openOnFirstUse and an
// empty data directory, pings, size caps and migrations leave it unstarted (the
// directory stays empty), the first query starts it with the latest migration asked
// for; a directory that holds data starts at its first call as before; a failed
// start is tried again by the next call.
import t, { type Test } from 'tap'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EmbeddedStore, enforceSizeCap, migrateLogStore, openLogStore } from '../../ingest/index.ts'

function scratch(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-embedded-store-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const ttlDays = async (store: ReturnType<typeof openLogStore>): Promise<number> => {
  const r = await store.query<{ ddl: string }>('SELECT create_table_query AS ddl FROM system.tables WHERE database = {db:String} AND name = {t:String}', { db: store.database, t: 'logs' })
  return Number(/toIntervalDay\((\d+)\)/.exec(r.rows[0]?.ddl ?? '')?.[1])
}

t.test('an empty directory waits for the first log operation, then gets the latest schema', async (t) => {
  const dir = scratch(t)
  const store = openLogStore({ path: dir, openOnFirstUse: true })
  t.teardown(() => store.close())
  t.ok(store instanceof EmbeddedStore && store.waiting, 'waiting')
  t.equal(await migrateLogStore(store, { retentionDays: 30 }), 0, 'a migration is kept for later')
  t.equal(await migrateLogStore(store, { retentionDays: 7 }), 0, 'the latest one wins')
  t.equal(await store.ping(), true, 'an engine that holds nothing is fine')
  t.same(await enforceSizeCap(store, 1), { bytesBefore: 0, bytesAfter: 0, droppedPartitions: [] }, 'nothing to cap')
  t.same(readdirSync(dir), [], 'the engine never started: its directory is empty')

  const first = await store.query<{ n: string }>(`SELECT count() AS n FROM ${store.database}.logs`)
  t.equal(Number(first.rows[0]?.n), 0, 'the first query finds the table the kept migration made')
  t.notOk((store as EmbeddedStore).waiting, 'started')
  t.ok(readdirSync(dir).length > 0, 'the engine wrote its directory')
  t.equal(await ttlDays(store), 7, 'with the retention asked for last')
  t.equal(await migrateLogStore(store, { retentionDays: 3 }), 0, 'started: a migration runs at once (nothing new to apply)')
  t.equal(await ttlDays(store), 3, 'and its retention applies at once')
})

t.test('a directory that holds data is not kept waiting', async (t) => {
  const dir = scratch(t)
  const first = openLogStore({ path: dir, openOnFirstUse: true })
  await migrateLogStore(first, { retentionDays: 5 })
  await first.query('SELECT 1')
  await first.close()
  const again = openLogStore({ path: dir, openOnFirstUse: true })
  t.teardown(() => again.close())
  t.notOk((again as EmbeddedStore).waiting, 'not waiting')
  t.ok((await migrateLogStore(again, { retentionDays: 9 })) >= 0)
  t.equal(await ttlDays(again), 9, 'the migration ran at once')
  t.same(await enforceSizeCap(again, 1 << 30), { bytesBefore: 0, bytesAfter: 0, droppedPartitions: [] }, 'the cap asks the engine (an empty table)')
})

t.test('a start that fails is tried again by the next call', async (t) => {
  const dir = scratch(t)
  const store = openLogStore({ path: dir, openOnFirstUse: true }) as EmbeddedStore
  t.teardown(() => store.close())
  let attempts = 0
  store.deferPreparation(async (engine) => {
    attempts++
    if (attempts === 1) throw new Error('the first preparation fails')
    await migrateLogStore(engine, { retentionDays: 2 })
  })
  await t.rejects(store.query('SELECT 1'), /the first preparation fails/)
  const r = await store.query<{ n: string }>(`SELECT count() AS n FROM ${store.database}.logs`)
  t.equal(Number(r.rows[0]?.n), 0, 'the second call started it, with the preparation')
  t.equal(attempts, 2)
  t.equal(await ttlDays(store), 2)
})

t.test('without openOnFirstUse the engine starts at the first call, whatever it is', async (t) => {
  const dir = scratch(t)
  const store = openLogStore({ path: dir })
  t.teardown(() => store.close())
  t.notOk((store as EmbeddedStore).waiting)
  t.equal(await store.ping(), true, 'a ping starts it')
  t.ok(readdirSync(dir).length > 0)
  t.ok((await migrateLogStore(store, { retentionDays: 4 })) > 0, 'migrations apply at once')
})
