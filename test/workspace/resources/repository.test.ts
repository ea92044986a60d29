// Repository views: the server's own clone of a repository resource, read from
// git's object database (status, tree, file, search), refreshed in the
// background, and confined: no `..`, no symbolic-link escape, no source
// outside the operator's roots, no pathspec or option injection.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestLookout, retryWhenShed } from '../../helpers/lookout.ts'

const base = mkdtempSync(join(tmpdir(), 'lookout-repo-test-'))
t.teardown(() => rmSync(base, { recursive: true, force: true }))
const root = join(base, 'root')
const outside = join(base, 'outside')
mkdirSync(root)
mkdirSync(outside)
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.net', GIT_COMMITTER_NAME: 'Ada', GIT_COMMITTER_EMAIL: 'ada@example.net' }
const git = (repo: string, ...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env: gitEnv }).toString().trim()
function makeRepo(dir: string, files: Record<string, string | Buffer>, links: Record<string, string> = {}): string {
  mkdirSync(dir, { recursive: true })
  execFileSync('git', ['init', '-q', '-b', 'main', dir])
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true })
    writeFileSync(join(dir, p), c)
  }
  for (const [p, target] of Object.entries(links)) symlinkSync(target, join(dir, p))
  if (Object.keys(files).length > 0) {
    git(dir, 'add', '-A')
    git(dir, 'commit', '-qm', 'first commit')
  }
  return dir
}

writeFileSync(join(root, 'secret.txt'), 'TOPSECRET outside the repository\n')
const many = Object.fromEntries(Array.from({ length: 35 }, (_, i) => [`many/f${String(i).padStart(2, '0')}.txt`, `file ${i}\n`]))
const app = makeRepo(join(root, 'app'), {
  'README.md': 'Hello\nThis line has a Needle in it\n',
  'src/a.ts': 'export const needle = 1\n// flag --output=/tmp/pwned\n',
  'src/b.ts': 'const NEEDLE = 2\n',
  'big.txt': Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
  'crlf.txt': 'one\r\ntwo\r\n',
  'image.bin': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65]),
  ...many,
}, { passwd: '/etc/passwd', etc: '/etc', up: '../..', 'leak.txt': '../secret.txt' })
const wiki = makeRepo(join(root, 'app-wiki'), { 'Home.md': '# Wiki home\n' })
const empty = makeRepo(join(root, 'empty'), {})
mkdirSync(join(root, 'not-a-repo'))
const evil = makeRepo(join(outside, 'evil'), { 'loot.txt': 'TOPSECRET from outside the roots\n' })
symlinkSync(evil, join(root, 'link-out'))

const lk = await startTestLookout({ env: { LOOKOUT_REPOSITORY_ROOTS: root } })
t.teardown(() => lk.stop())
retryWhenShed(lk)
const P = `/v1/workspaces/${lk.workspaceId}`
const as = (token: string) => ({ authorization: `Bearer ${token}` })

async function repoResource(details: Record<string, string>, kind = 'repository'): Promise<string> {
  const r = await lk.req('POST', `${P}/resources`, { external_id: `repo-${randomUUID()}`, name: 'repo', kind, details })
  if (r.status !== 201) throw new Error(`register: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body.id as string
}
const view = (rid: string, q = '') => lk.req('GET', `${P}/resources/${rid}/repository${q === '' ? '' : `?${q}`}`)
/** Polls the status view until `done` holds (the fetch runs in the background). */
async function waitStatus(rid: string, done: (b: any) => boolean, q = ''): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const s = await view(rid, q)
    if (s.status === 200 && done(s.body)) return s.body
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('the repository never reached the expected state')
}

const appId = await repoResource({ repository_url: app, repository_wiki_url: `file://${wiki}` })

t.test('first read fetches in the background; status names branch, head and last refresh', async (t) => {
  const first = await view(appId)
  t.equal(first.status, 200)
  t.match(first.body, { resource_id: appId, source: 'code', view: 'status', configured_as: 'repository_url' })
  t.ok(['refreshing', 'ready'].includes(first.body.state))
  const s = await waitStatus(appId, (b) => b.state === 'ready')
  t.match(s, { branch: 'main', refreshing: false, last_error: null, head: { commit: git(app, 'rev-parse', 'HEAD'), subject: 'first commit', author: 'Ada' } })
  t.ok(Date.parse(s.last_refresh_at) > 0)
})

t.test('tree: entries with types, windows by line and limit', async (t) => {
  const r = await view(appId, 'view=tree')
  t.equal(r.status, 200)
  const byName = Object.fromEntries(r.body.entries.map((e: { name: string; type: string }) => [e.name, e.type]))
  t.same(byName, { 'README.md': 'file', 'big.txt': 'file', 'crlf.txt': 'file', etc: 'symlink', 'image.bin': 'file', 'leak.txt': 'symlink', many: 'directory', passwd: 'symlink', src: 'directory', up: 'symlink' })
  const src = await view(appId, 'view=tree&path=src/')
  t.same(src.body.entries, [{ name: 'a.ts', path: 'src/a.ts', type: 'file', size: 52 }, { name: 'b.ts', path: 'src/b.ts', type: 'file', size: 17 }])
  const d = await view(appId, 'view=tree&path=many')
  t.equal(d.body.entries.length, 30, 'default limit 30')
  t.equal(d.body.total, 35)
  t.equal(d.body.next_line, 31)
  const rest = await view(appId, 'view=tree&path=many&line=31')
  t.same(rest.body.entries.map((e: { name: string }) => e.name), ['f30.txt', 'f31.txt', 'f32.txt', 'f33.txt', 'f34.txt'])
  t.equal(rest.body.next_line, null)
  t.equal((await view(appId, 'view=tree&path=many&limit=100')).body.entries.length, 35)
  t.equal((await view(appId, 'view=tree&path=many&limit=1')).body.entries.length, 1)
  t.equal((await view(appId, 'view=tree&limit=0')).status, 422)
  t.equal((await view(appId, 'view=tree&limit=101')).status, 422)
  t.equal((await view(appId, 'view=tree&line=0')).status, 422)
  t.equal((await view(appId, 'view=tree&path=nope')).status, 404)
  const file = await view(appId, 'view=tree&path=README.md')
  t.equal(file.status, 422)
  t.same(file.body.detail[0].loc, ['query', 'path'])
})

t.test('file: a window of lines, binary and CRLF files, errors', async (t) => {
  const r = await view(appId, 'view=file&path=big.txt&line=10&limit=5')
  t.equal(r.status, 200)
  t.same(r.body.lines, [10, 11, 12, 13, 14].map((n) => ({ number: n, text: `line ${n}` })))
  t.equal(r.body.total_lines, 100)
  t.equal(r.body.next_line, 15)
  const end = await view(appId, 'view=file&path=big.txt&line=71')
  t.equal(end.body.lines.length, 30)
  t.equal(end.body.next_line, null)
  t.same((await view(appId, 'view=file&path=big.txt&line=200')).body.lines, [], 'past the end')
  t.same((await view(appId, 'view=file&path=src/./a.ts')).body.lines[0], { number: 1, text: 'export const needle = 1' })
  t.same((await view(appId, 'view=file&path=crlf.txt')).body.lines, [{ number: 1, text: 'one' }, { number: 2, text: 'two' }])
  const bin = await view(appId, 'view=file&path=image.bin')
  t.match(bin.body, { binary: true, lines: [], size: 14 })
  t.equal((await view(appId, 'view=file')).status, 422, 'a file view needs a path')
  t.equal((await view(appId, 'view=file&path=src')).status, 422, 'a directory is not a file')
  t.equal((await view(appId, 'view=file&path=missing.txt')).status, 404)
})

t.test('search: fixed text, case-insensitive, windows, path filter, no option injection', async (t) => {
  const r = await view(appId, 'view=search&query=needle')
  t.equal(r.status, 200)
  t.same(r.body.matches, [
    { path: 'README.md', line: 2, text: 'This line has a Needle in it' },
    { path: 'src/a.ts', line: 1, text: 'export const needle = 1' },
    { path: 'src/b.ts', line: 1, text: 'const NEEDLE = 2' },
  ], 'binary files are skipped')
  t.equal(r.body.next_line, null)
  const w = await view(appId, 'view=search&query=needle&limit=2')
  t.equal(w.body.matches.length, 2)
  t.equal(w.body.next_line, 3)
  t.same((await view(appId, 'view=search&query=needle&line=3&limit=2')).body.matches.map((m: { path: string }) => m.path), ['src/b.ts'])
  t.same((await view(appId, 'view=search&query=needle&path=src')).body.matches.map((m: { path: string }) => m.path), ['src/a.ts', 'src/b.ts'])
  t.same((await view(appId, 'view=search&query=.*')).body.matches, [], 'the query is text, not a pattern')
  const opt = await view(appId, `view=search&query=${encodeURIComponent('--output=/tmp/pwned')}`)
  t.same(opt.body.matches, [{ path: 'src/a.ts', line: 2, text: '// flag --output=/tmp/pwned' }], 'a query starting with - is text')
  t.notOk(existsSync('/tmp/pwned'))
  const magic = await view(appId, `view=search&query=needle&path=${encodeURIComponent(':(top)')}`)
  t.same(magic.body.matches, [], 'pathspec magic is a literal path')
  t.same((await view(appId, `view=search&query=needle&path=${encodeURIComponent(':!src')}`)).body.matches, [])
  const missing = await view(appId, 'view=search')
  t.equal(missing.status, 422)
  t.same(missing.body.detail[0].loc, ['query', 'query'])
  t.equal((await view(appId, `view=search&query=${'q'.repeat(1001)}`)).status, 422)
  t.equal((await view(appId, `view=search&query=${'q'.repeat(1000)}`)).status, 200)
  await view(appId, 'source=wiki')
  await waitStatus(appId, (b) => b.state === 'ready', 'source=wiki')
  t.same((await view(appId, 'view=search&query=wiki%20home&source=wiki')).body.matches, [{ path: 'Home.md', line: 1, text: '# Wiki home' }], 'the wiki source')
})

t.test('path confinement: .. and absolute paths refused', async (t) => {
  for (const path of ['..', '../secret.txt', 'src/../../secret.txt', 'src/..', '/etc/passwd', '//etc/passwd', 'a/\0/b']) {
    for (const v of ['tree', 'file', 'search&query=x']) {
      const r = await view(appId, `view=${v}&path=${encodeURIComponent(path)}`)
      t.equal(r.status, 422, `${v} ${JSON.stringify(path)}`)
      t.same(r.body.detail[0].loc, ['query', 'path'])
    }
  }
  t.equal((await view(appId, `view=tree&path=${'p'.repeat(2001)}`)).status, 422, 'path over 2000 characters')
  t.equal((await view(appId, `view=tree&path=${'p'.repeat(2000)}`)).status, 404, 'path of 2000 characters accepted')
})

t.test('symbolic links are data, never followed', async (t) => {
  const link = await view(appId, 'view=file&path=passwd')
  t.equal(link.status, 200)
  t.match(link.body, { type: 'symlink', target: '/etc/passwd', lines: [] })
  t.notOk(JSON.stringify(link.body).includes('root:'), 'not the contents of /etc/passwd')
  t.equal((await view(appId, 'view=file&path=etc/passwd')).status, 404, 'no path through a linked directory')
  t.equal((await view(appId, 'view=tree&path=etc')).status, 422, 'a link is not a directory')
  t.equal((await view(appId, 'view=file&path=up/secret.txt')).status, 404)
  t.equal((await view(appId, 'view=file&path=up/outside/evil/loot.txt')).status, 404)
  const leak = await view(appId, 'view=file&path=leak.txt')
  t.match(leak.body, { type: 'symlink', target: '../secret.txt' })
  t.notOk(JSON.stringify(leak.body).includes('TOPSECRET'))
  t.same((await view(appId, 'view=search&query=root:x:0')).body.matches, [])
  t.same((await view(appId, 'view=search&query=TOPSECRET')).body.matches, [])
})

t.test('sources the server may not read are refused with 409', async (t) => {
  const cases: [Record<string, string>, RegExp, string?][] = [
    [{ host: 'x' }, /kind server/, 'server'],
    [{}, /no repository_url/],
    [{ repository_url: join(outside, 'evil') }, /outside the directories/],
    [{ repository_url: join(root, 'link-out') }, /outside the directories/],
    [{ repository_url: join(root, 'app', 'up', 'outside', 'evil') }, /outside the directories/],
    [{ repository_url: join(root, 'nope') }, /not a readable directory/],
    [{ repository_url: 'app' }, /https URL or an absolute path/],
    [{ repository_url: 'http://example.com/r.git' }, /https URL or an absolute path/],
    [{ repository_url: 'git@example.com:r.git' }, /https URL or an absolute path/],
    // ssh:// is read only with the resource's registered SSH key (test/workspace/resources/repository-ssh.test.ts).
    [{ repository_url: 'ssh://example.com/r.git' }, /LOOKOUT_SECRET_KEY|SSH key/],
    [{ repository_url: 'https://user:pw@example.com/r.git' }, /credentials/],
    [{ repository_url: 'https://127.0.0.1/r.git' }, /private or reserved/],
    [{ repository_url: 'https://[::1]/r.git' }, /private or reserved/],
    [{ repository_url: 'https://10.1.2.3/r.git' }, /private or reserved/],
    [{ repository_url: 'https://169.254.169.254/latest' }, /private or reserved/],
    [{ repository_url: 'https://localhost/r.git' }, /private or reserved/],
  ]
  for (const [details, msg, kind] of cases) {
    const rid = await repoResource(details, kind)
    for (const r of [await view(rid), await lk.req('POST', `${P}/resources/${rid}/repository/refresh`)]) {
      t.equal(r.status, 409, JSON.stringify(details))
      t.equal(r.body.detail[0].type, 'LOOKOUT_REPOSITORY_NOT_CONFIGURED')
      t.match(r.body.detail[0].msg, msg)
    }
  }
  const noWiki = await repoResource({ repository_url: empty })
  const w = await view(noWiki, 'source=wiki')
  t.equal(w.status, 409)
  t.match(w.body.detail[0].msg, /repository_wiki_url/)
})

t.test('a fetch that fails is reported; reads answer 503 until a good fetch', async (t) => {
  const rid = await repoResource({ repository_url: join(root, 'not-a-repo') })
  const s = await waitStatus(rid, (b) => b.state === 'failed')
  t.ok(s.last_error.length > 0)
  t.notOk(s.last_error.includes(lk.dataDir), 'no server paths in the error')
  const r = await view(rid, 'view=tree')
  t.equal(r.status, 503)
  t.equal(r.body.detail[0].type, 'LOOKOUT_REPOSITORY_UNAVAILABLE')
  t.match(r.body.detail[0].msg, /last fetch failed/)
  t.equal(r.headers.get('retry-after'), '2')
  // Point it at a real repository: the next read fetches it.
  await lk.req('PATCH', `${P}/resources/${rid}`, { details: { repository_url: wiki } })
  await view(rid)
  const ok = await waitStatus(rid, (b) => b.state === 'ready')
  t.equal(ok.head.commit, git(wiki, 'rev-parse', 'HEAD'))
})

t.test('refresh: returns at once, then the clone follows the source', async (t) => {
  const src = makeRepo(join(root, 'moving'), { 'v.txt': 'version 1\n' })
  const rid = await repoResource({ repository_url: src })
  await view(rid)
  await waitStatus(rid, (b) => b.state === 'ready')
  writeFileSync(join(src, 'v.txt'), 'version 2\n')
  git(src, 'commit', '-qam', 'second')
  const head = git(src, 'rev-parse', 'HEAD')
  t.same((await view(rid, 'view=file&path=v.txt')).body.lines, [{ number: 1, text: 'version 1' }], 'the clone is not live')
  const r = await lk.req('POST', `${P}/resources/${rid}/repository/refresh`)
  t.equal(r.status, 200)
  t.match(r.body, { resource_id: rid, refreshing: [{ source: 'code' }] })
  const s = await waitStatus(rid, (b) => b.state === 'ready' && b.head?.commit === head)
  t.equal(s.head.subject, 'second')
  t.same((await view(rid, 'view=file&path=v.txt')).body.lines, [{ number: 1, text: 'version 2' }])
  const both = await lk.req('POST', `${P}/resources/${appId}/repository/refresh`)
  t.same(both.body.refreshing.map((x: { source: string }) => x.source), ['code', 'wiki'], 'both configured sources')
})

t.test('an empty repository has no head (repository-semantic.test.ts tests view=semantic)', async (t) => {
  const rid = await repoResource({ repository_url: empty })
  await view(rid)
  const s = await waitStatus(rid, (b) => b.state === 'ready')
  t.equal(s.head, null)
  t.equal((await view(rid, 'view=tree')).status, 404)
  t.equal((await view(rid, 'view=semantic&query=auth')).status, 404, 'no commit to index')
})

t.test('query schema, grants and missing resources', async (t) => {
  t.equal((await view(appId, 'view=blame')).status, 422)
  t.equal((await view(appId, 'source=docs')).status, 422)
  t.equal((await view(appId, 'page=2')).status, 422, 'unknown query parameter')
  t.equal((await view(randomUUID())).status, 404)
  t.equal((await lk.req('POST', `${P}/resources/${randomUUID()}/repository/refresh`)).status, 404)
  const other = await lk.resource('repo-other')
  const scoped = await lk.token_(['logs:read'], [other])
  t.equal((await lk.req('GET', `${P}/resources/${appId}/repository`, undefined, as(scoped))).status, 403)
  t.equal((await lk.req('POST', `${P}/resources/${appId}/repository/refresh`, undefined, as(scoped))).status, 403)
  const mine = await lk.token_(['logs:read'], [appId])
  t.equal((await lk.req('GET', `${P}/resources/${appId}/repository?view=tree&path=src`, undefined, as(mine))).status, 200, 'the resource grant is enough to read')
})
