// The embedded store's statements beside another (queryBeside) carry their values
// in the text (ingest/store/inline-params.ts). Whatever the characters, a value
// must mean what it means bound, and never change the statement; and the
// statement must really run beside a bound one, not after it.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLogStore } from '../../ingest/index.ts'
import { inlineParams } from '../../ingest/store/inline-params.ts'

const dir = mkdtempSync(join(tmpdir(), 'lookout-inline-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const store = openLogStore({ path: dir })
t.teardown(() => store.close())
const beside = store.queryBeside?.bind(store)
if (beside === undefined) throw new Error('the embedded store has queryBeside')

const NASTY = [
  "it's", 'back\\slash', "'); DROP TABLE x; --", '{s:String}', 'tab\there', 'new\nline', 'nul\u0000byte', 'ünïcødé 日本', '', '\\\'', '$1 $& $`',
]

t.test('a value means what it means bound, whatever its characters', async (t) => {
  for (const s of NASTY) {
    const sql = 'SELECT {s:String} AS s, length({s:String}) AS n, {a:Array(String)} AS a'
    const params = { s, a: [s, 'x'] }
    const bound = await store.query<{ s: string; n: string; a: string[] }>(sql, params)
    const inlined = await beside<{ s: string; n: string; a: string[] }>(sql, params)
    t.same(inlined.rows, bound.rows, JSON.stringify(s))
    t.equal(inlined.rows[0]?.s, s)
  }
})

t.test('numbers, UUIDs, times and empty arrays keep their types', async (t) => {
  const sql = `SELECT {u:UUID} AS u, toTypeName({u:UUID}) AS ut, {i:Int64} + 1 AS i, {n:UInt32} AS n,
    toUnixTimestamp64Nano(fromUnixTimestamp64Nano({t:Int64})) AS t, {e:Array(UUID)} AS e, toTypeName({e:Array(UUID)}) AS et, {b:UInt8} AS b, {big:Int64} AS big`
  const params = { u: '0f0e0d0c-0b0a-4908-8706-050403020100', i: '-9223372036854775807', n: 4294967295, t: (BigInt(Date.now()) * 1_000_000n + 123_456_789n).toString(), e: [], b: 7, big: 12345678901234567n }
  const bound = await store.query(sql, params)
  const inlined = await beside(sql, params)
  t.same(inlined.rows, bound.rows)
  t.match(inlined.rows[0], { ut: 'UUID', et: 'Array(UUID)', n: 4294967295 })
})

t.test('a placeholder without its value, or a value of the wrong shape, is an error before the engine', async (t) => {
  t.throws(() => inlineParams('SELECT {a:String}', {}), /no value for parameter a/)
  t.throws(() => inlineParams('SELECT {a:String}', undefined), /no value for parameter a/)
  t.throws(() => inlineParams('SELECT {a:Array(String)}', { a: 'x' }), /not an array/)
  t.throws(() => inlineParams('SELECT {a:String}', { a: ['x'] }), /is an array/)
  t.throws(() => inlineParams('SELECT {a:String}', { a: null }), /null/)
  t.throws(() => inlineParams('SELECT {a:UInt8}', { a: true }), /boolean/)
  t.throws(() => inlineParams('SELECT {a:Float64}', { a: Number.NaN }), /finite/)
  t.equal(inlineParams('SELECT 1', undefined), 'SELECT 1', 'a statement without placeholders is unchanged')
})

t.test('it runs beside a bound statement, not after it', async (t) => {
  // Two half-second statements: one after the other they take a second.
  const t0 = performance.now()
  await Promise.all([store.query('SELECT sleep({s:Float64}) AS x', { s: 0.5 }), beside('SELECT sleep({s:Float64}) AS x', { s: 0.5 })])
  const took = performance.now() - t0
  t.ok(took < 900, `both in ${took.toFixed(0)} ms`)
})

t.test('its errors keep the engine\'s codes', async (t) => {
  await t.rejects(beside('SELECT count() FROM numbers({n:UInt64}) SETTINGS max_rows_to_read = 10, read_overflow_mode = \'throw\'', { n: 1000 }), { code: '158' })
  const after = await beside<{ one: number }>('SELECT {one:UInt8} AS one', { one: 1 })
  t.same(after.rows, [{ one: 1 }], 'and the next statement gets its own rows')
})
