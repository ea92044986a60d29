// libchdb runs one statement at a time per connection: the embedded store's
// inserts have a connection of their own, so a search does not wait for the
// insert in flight (a steady load: 400 ms p50 for a one-row query before).
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { migrateLogStore, openLogStore } from '../../ingest/index.ts'
import { objectRowLine } from '../helpers/object-row.ts'

const dir = mkdtempSync(join(tmpdir(), 'lookout-insert-conn-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const store = openLogStore({ path: dir })
t.teardown(() => store.close())
await migrateLogStore(store, { retentionDays: 7 })

t.test('a query answers while an insert is in flight', async (t) => {
  const ws = randomUUID()
  const rid = randomUUID()
  const ns = BigInt(Date.now()) * 1_000_000n
  let body = ''
  for (let i = 0; i < 150_000; i++) {
    body += objectRowLine({ workspaceId: ws, resourceId: rid, receivedNs: ns, timestampNs: ns + BigInt(i), batchId: 'conn', eventId: `c-${i}`, message: `line ${i} of the insert that takes a while` })
  }
  const order: string[] = []
  const insert = store.insertJsonRows('logs', Buffer.from(body), 'insert-connection').then(() => order.push('insert'))
  // The insert is in flight once the engine lists it (its rows are written to a file first);
  // asked on the store's connection for statements beside others, which no insert uses either.
  const beside = store.queryBeside?.bind(store)
  if (beside === undefined) throw new Error('the embedded store has queryBeside')
  for (;;) {
    const listed = await beside<{ n: number }>('SELECT count() AS n FROM system.processes WHERE query LIKE {p:String}', { p: 'INSERT INTO lookout.logs%' })
    if (Number(listed.rows[0]?.n) > 0) break
    if (order.length > 0) throw new Error('the insert ended before it was seen running')
    await new Promise((r) => setTimeout(r, 5))
  }
  const query = store.query<{ n: number }>('SELECT count() AS n FROM lookout.logs WHERE workspace_id = {ws:UUID}', { ws }).then((r) => {
    order.push('query')
    return r
  })
  const [counted] = await Promise.all([query, insert])
  // Queued behind the insert on one connection, it would count the insert's rows.
  t.equal(Number(counted.rows[0]?.n), 0, 'the query answered before the insert\'s rows were there')
  const after = await store.query<{ n: number }>('SELECT count() AS n FROM lookout.logs WHERE workspace_id = {ws:UUID}', { ws })
  t.equal(Number(after.rows[0]?.n), 150_000, 'and the insert is whole once it answers')
})
