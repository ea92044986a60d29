// A query that fails while it runs must not fail the next one: throwIf past the
// first block here, and in use a query past the memory ceiling that
// LOOKOUT_ENGINE_MAX_MEMORY_BYTES sets. libchdb hands the failed query's partial
// output out ahead of the connection's next result; the store reads its own
// result only, for plain and parameterized queries, after a command too.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLogStore } from '../../ingest/index.ts'
import { lastJsonDocument } from '../../ingest/store/chdb-store.ts'

const FAILS_MIDWAY = 'SELECT throwIf(number > 100000) AS x FROM numbers(1000000)'
const FAILS_AT_ONCE = 'SELECT throwIf(number = 0) AS x FROM numbers(10)'

t.test('a failed query leaves the next results whole', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-chdb-failed-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const store = openLogStore({ path: dir, engineMemory: { maxMemoryBytes: 512 * 1024 * 1024 } })
  t.teardown(() => store.close())

  await t.rejects(store.query(FAILS_MIDWAY), /throwIf/, 'the failed query reports the engine\'s error')
  const plain = await store.query<{ one: number }>('SELECT 1 AS one')
  t.same(plain.rows, [{ one: 1 }], 'the next plain query gets its own rows')

  await t.rejects(store.query(FAILS_AT_ONCE), /throwIf/)
  const bound = await store.query<{ n: string }>('SELECT count() AS n FROM numbers({k:UInt32})', { k: 12345 })
  t.same(bound.rows, [{ n: '12345' }], 'a parameterized query too')
  t.equal(bound.rowsRead, 12345, 'with its own read statistics')

  await t.rejects(store.query('SELECT throwIf(number > {n:UInt32}) AS x FROM numbers(1000000)', { n: 5000 }), /throwIf/)
  await store.command('CREATE TABLE default.after_failure (x UInt8) ENGINE = Memory')
  const after = await store.query<{ name: string }>("SELECT name FROM system.tables WHERE database = 'default' AND name = 'after_failure'")
  t.same(after.rows, [{ name: 'after_failure' }], 'a command in between changes nothing')

  await t.rejects(store.query('SELECT number % 1000 AS k, groupArray(number) AS a FROM numbers(300000000) GROUP BY k'), /memory limit exceeded/,
    'a query past the engine\'s memory ceiling fails')
  const next = await store.query<{ two: number }>('SELECT 2 AS two')
  t.same(next.rows, [{ two: 2 }], 'and the next query gets its own rows')

  for (let i = 0; i < 3; i++) await t.rejects(store.query(FAILS_MIDWAY), /throwIf/)
  const rows = await store.query<{ s: string }>("SELECT 'tab\\there\\nnewline {\\n\\t\"meta\"' AS s")
  t.same(rows.rows, [{ s: 'tab\there\nnewline {\n\t"meta"' }], 'a value that looks like a result start is read whole, after failures in a row')
})

t.test('lastJsonDocument keeps a lone document as it is', async (t) => {
  const doc = '{\n\t"meta": [],\n\t"data": []\n}\n'
  t.equal(lastJsonDocument(doc), doc)
  t.equal(lastJsonDocument('{\n\t"meta":\n\t[\n\n' + doc), doc, 'a partial one in front is dropped')
  t.equal(lastJsonDocument(''), '')
})
