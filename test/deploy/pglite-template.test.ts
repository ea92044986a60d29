// Fresh PGlite directories start from a kept initdb (core/db/pglite-template.ts):
// the copy is a working, independent cluster; a bad or unsafe template is never
// used; an existing directory is never touched by it.
import t, { type Test } from 'tap'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPglite } from '../../core/index.ts'
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

t.test('LOOKOUT_CACHE_DIR: default per user, a path, or off', async (t) => {
  t.equal(loadConfig({ HOME: '/home/u' }).cacheDir, '/home/u/.cache/lookout')
  t.equal(loadConfig({ HOME: '/home/u', XDG_CACHE_HOME: '/xdg' }).cacheDir, '/xdg/lookout')
  t.equal(loadConfig({}).cacheDir, join(homedir(), '.cache', 'lookout'))
  t.equal(loadConfig({ LOOKOUT_CACHE_DIR: '/var/cache/lk' }).cacheDir, '/var/cache/lk')
  t.equal(loadConfig({ LOOKOUT_CACHE_DIR: 'off' }).cacheDir, undefined)
})
