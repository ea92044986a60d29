// Fresh PGlite directories start from a kept initdb, or a kept migrated cluster (core/db/pglite-template.ts):
// the copy is a working, independent cluster; a bad or unsafe template is never
// used; an existing directory is never touched by it.
import t, { type Test } from 'tap'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate, openPglite, type MigrationSet } from '../../core/index.ts'
import { loadConfig } from '../../deploy/index.ts'
import { readTemplate, templatePath } from '../../core/db/pglite-template.ts'

const root = mkdtempSync(join(tmpdir(), 'lookout-pglite-template-'))
t.teardown(() => rmSync(root, { recursive: true, force: true }))
let n = 0
const fresh = () => join(root, `data-${n++}`, 'postgres')

async function roundTrip(t: Test, dir: string, templateDir: string, value: string): Promise<void> {
  const db = await openPglite(dir, { templateDir })
  await db.exec(`CREATE TABLE marks (v text); INSERT INTO marks VALUES ('${value}')`)
  await db.close()
  const again = await openPglite(dir, { templateDir })
  t.same((await again.query<{ v: string }>('SELECT v FROM marks')).rows, [{ v: value }], `${value}: kept across a reopen`)
  await again.close()
}

t.test('the first fresh directory keeps a template; the next starts from it, a cluster of its own', async (t) => {
  const templateDir = join(root, 'cache-a')
  const first = fresh()
  await roundTrip(t, first, templateDir, 'first')
  const file = templatePath(templateDir)
  t.ok(existsSync(file), 'template written')
  t.equal(statSync(templateDir).mode & 0o777, 0o700, 'its directory is private')
  t.equal(statSync(file).mode & 0o777, 0o600, 'and so is the file')
  const before = readFileSync(file)

  const second = fresh()
  await roundTrip(t, second, templateDir, 'second')
  t.ok(readFileSync(file).equals(before), 'the template is read, not rewritten')
  const db = await openPglite(second, { templateDir })
  t.same((await db.query('SELECT v FROM marks')).rows, [{ v: 'second' }], 'nothing of the first directory came along')
  t.equal((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_database WHERE datname = 'postgres'")).rows[0]?.n, 1)
  await db.close()
})

t.test('a damaged template is never given to PGlite: the directory is made the slow way and a good template replaces it', async (t) => {
  const good = readFileSync(templatePath(join(root, 'cache-a')))
  const templateDir = join(root, 'cache-b')
  mkdirSync(templateDir, { mode: 0o700 })
  writeFileSync(templatePath(templateDir), good.subarray(0, good.byteLength - 4096), { mode: 0o600 })
  t.equal(readTemplate(templateDir), null, 'its digest no longer matches')
  await roundTrip(t, fresh(), templateDir, 'after-truncation')
  t.ok(readTemplate(templateDir) !== null, 'a whole template took its place (its digest matches)')
})

t.test('a template directory others can write is neither read nor written', async (t) => {
  const templateDir = join(root, 'cache-c')
  mkdirSync(templateDir, { mode: 0o700 })
  chmodSync(templateDir, 0o777)
  const file = templatePath(templateDir)
  writeFileSync(file, Buffer.from('planted'))
  await roundTrip(t, fresh(), templateDir, 'unsafe')
  t.equal(readFileSync(file, 'utf8'), 'planted', 'not replaced')
})

t.test('an existing directory opens as it is', async (t) => {
  const templateDir = join(root, 'cache-d')
  const db = await openPglite(join(root, 'data-0', 'postgres'), { templateDir })
  t.same((await db.query('SELECT v FROM marks')).rows, [{ v: 'first' }])
  await db.close()
  t.notOk(existsSync(templatePath(templateDir)), 'no template made from a directory with data in it')
})

const SETS = (extra: string): MigrationSet[] => [{ stage: 'tpl', migrations: [
  { version: 1, name: 'marks', sql: 'CREATE TABLE marks (v text); INSERT INTO marks VALUES (\'from the migration\')' },
  { version: 2, name: 'extra', sql: `CREATE TABLE ${extra} (id int)` },
] }]
const migratedFiles = (dir: string) => readdirSync(dir).filter((f) => /^pglite-.+-m-[0-9a-f]{16}\.tar\.gz$/.test(f)).sort()

t.test('a fresh directory with migrations keeps a migrated template; the next starts from it with nothing left to apply', async (t) => {
  const templateDir = join(root, 'cache-m')
  // Starts from the initdb template the first test kept (an initdb costs seconds of CPU; the first test covers making it).
  mkdirSync(templateDir, { mode: 0o700 })
  copyFileSync(templatePath(join(root, 'cache-a')), templatePath(templateDir))
  const first = await openPglite(fresh(), { templateDir, migrations: SETS('one') })
  t.equal(await migrate(first, SETS('one')), 0, 'openPglite applied them')
  await first.exec(`INSERT INTO marks VALUES ('only in the first')`)
  await first.close()
  const files = migratedFiles(templateDir)
  t.equal(files.length, 1, 'one migrated template')
  const second = await openPglite(fresh(), { templateDir, migrations: SETS('one') })
  t.equal(await migrate(second, SETS('one')), 0, 'nothing left to apply')
  t.same((await second.query('SELECT v FROM marks')).rows, [{ v: 'from the migration' }], 'the migrated rows, none of another cluster')
  t.same((await second.query('SELECT stage, version FROM schema_migrations ORDER BY version')).rows, [{ stage: 'tpl', version: 1 }, { stage: 'tpl', version: 2 }])
  await second.close()
  t.same(migratedFiles(templateDir), files, 'the template was used, not remade')

  // Changed migrations: a template of their own; at most three are kept.
  for (const extra of ['two', 'three', 'four']) {
    const db = await openPglite(fresh(), { templateDir, migrations: SETS(extra) })
    t.equal((await db.query(`SELECT count(*)::int AS n FROM ${extra}`)).rows.length, 1, `${extra}: its own schema`)
    await db.close()
  }
  const after = migratedFiles(templateDir)
  t.equal(after.length, 3, 'the oldest pruned')
  t.notOk(after.includes(files[0] as string), 'the first set\'s template is the one pruned')

  // A damaged migrated template is never loaded: the directory is migrated the slow way.
  const newest = join(templateDir, after[after.length - 1] as string)
  writeFileSync(newest, Buffer.from('damaged'))
  const healed = await openPglite(fresh(), { templateDir, migrations: SETS('four') })
  t.same((await healed.query('SELECT v FROM marks')).rows, [{ v: 'from the migration' }])
  await healed.close()
})

t.test('without a tar program the template is unpacked by PGlite itself', async (t) => {
  const path = process.env.PATH
  process.env.PATH = join(root, 'no-programs-here')
  t.teardown(() => { process.env.PATH = path })
  const kept = [templatePath(join(root, 'cache-a')), ...migratedFiles(join(root, 'cache-m')).map((f) => join(root, 'cache-m', f))]
  const times = kept.map((f) => statSync(f).mtimeMs)
  await roundTrip(t, fresh(), join(root, 'cache-a'), 'no-tar')
  const db = await openPglite(fresh(), { templateDir: join(root, 'cache-m'), migrations: SETS('four') })
  t.same((await db.query('SELECT v FROM marks')).rows, [{ v: 'from the migration' }], 'the migrated template too')
  await db.close()
  t.same(kept.map((f) => statSync(f).mtimeMs), times, 'made from the templates (the slow way would have rewritten them)')
})

t.test('LOOKOUT_CACHE_DIR: default per user, a path, or off', async (t) => {
  t.equal(loadConfig({ HOME: '/home/u' }).cacheDir, '/home/u/.cache/lookout')
  t.equal(loadConfig({ HOME: '/home/u', XDG_CACHE_HOME: '/xdg' }).cacheDir, '/xdg/lookout')
  t.equal(loadConfig({}).cacheDir, join(homedir(), '.cache', 'lookout'))
  t.equal(loadConfig({ LOOKOUT_CACHE_DIR: '/var/cache/lk' }).cacheDir, '/var/cache/lk')
  t.equal(loadConfig({ LOOKOUT_CACHE_DIR: 'off' }).cacheDir, undefined)
})
