// Named statements on PGlite: PREPARE once, EXECUTE with the values written as
// literals. Every value kind a page binds must come back exactly as the plain
// query's, a quote in a value must stay inside its literal, and what has no safe
// literal (a NUL) must run as a plain query.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPglite } from '../../core/index.ts'
import { executeText, sqlLiteral } from '../../core/db/pglite-prepared.ts'

// pinned-date: calendar dates the code never compares with the clock
const dir = mkdtempSync(join(tmpdir(), 'lookout-prepared-'))
const db = await openPglite(join(dir, 'pg'))
t.teardown(async () => {
  await db.close()
  rmSync(dir, { recursive: true, force: true })
})
await db.exec(`CREATE TABLE things (id uuid PRIMARY KEY, name text NOT NULL, tags text[] NOT NULL, n integer, due date, ok boolean)`)
await db.query(`INSERT INTO things VALUES
  ('00000000-0000-4000-8000-000000000001', 'plain', '{a,b}', 1, '2026-07-01', true),
  ('00000000-0000-4000-8000-000000000002', 'it''s "quoted" \\ back', '{"x y","q\\"uote"}', NULL, NULL, false),
  ('00000000-0000-4000-8000-000000000003', 'third', '{}', 3, '2026-08-01', NULL)`)

const TEXT = `SELECT id::text, name, tags, n, due::text, ok FROM things
  WHERE ($1::text IS NULL OR name = $1) AND ($2::text[] IS NULL OR tags && $2) AND ($3::integer IS NULL OR n >= $3)
    AND ($4::date IS NULL OR due < $4) AND ($5::boolean IS NULL OR ok = $5) ORDER BY id`
const prepared = async () => (await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements')).rows.map((r) => r.name)

// pinned-date: calendar dates the code never compares with the clock
t.test('each value kind gives the plain query\'s rows', async (t) => {
  const cases: unknown[][] = [
    [null, null, null, null, null],
    ['plain', null, null, null, null],
    [`it's "quoted" \\ back`, null, null, null, null],
    [null, ['x y'], null, null, null],
    [null, ['q"uote', 'a'], null, null, null],
    [null, null, 2, null, null],
    [null, null, null, '2026-07-15', null],
    [null, null, null, null, false],
    ["' OR true --", null, null, null, null],
  ]
  for (const params of cases) {
    const plain = await db.query(TEXT, params)
    const viaExecute = await db.query(TEXT, params, { prepared: true })
    t.same(viaExecute.rows, plain.rows, JSON.stringify(params))
  }
  t.equal((await db.query(TEXT, ["' OR true --", null, null, null, null], { prepared: true })).rows.length, 0, 'a quote stays inside its literal')
  t.equal((await prepared()).length, 1, 'one text, prepared once')
})

t.test('no safe literal: a plain query', async (t) => {
  t.equal(sqlLiteral('a\0b'), undefined)
  t.equal(executeText('s', ['ok', 'a\0b']), undefined)
  t.equal(sqlLiteral({}), undefined)
  t.equal(sqlLiteral(Number.NaN), undefined)
  t.equal(sqlLiteral(["it's"]), `'{"it''s"}'`)
  await t.rejects(db.query(TEXT, ['a\0b', null, null, null, null], { prepared: true }), 'PGlite refuses the NUL as it does without the option')
})

t.test('inside a transaction: run as EXECUTE once prepared, not prepared there', async (t) => {
  const other = 'SELECT count(*)::int AS n FROM things WHERE n > $1'
  const before = await prepared()
  const inTx = await db.transaction(async (tx) => (await tx.query<{ n: number }>(other, [0], { prepared: true })).rows[0]?.n)
  t.equal(inTx, 2)
  t.same(await prepared(), before, 'a transaction prepares nothing')
  const rows = await db.transaction(async (tx) => (await tx.query(TEXT, ['third', null, null, null, null], { prepared: true })).rows)
  t.same(rows.map((r) => (r as { name: string }).name), ['third'], 'a text prepared before runs as EXECUTE inside one')
})
