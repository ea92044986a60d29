// view=semantic on a real git repository: tree-sitter definitions (TypeScript,
// Python, Go) ranked against the query by name, signature and doc comment, with
// file, line and kind; camelCase and snake_case split; the route's limits at
// their edges; a new commit indexed on its own.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestLookout, retryWhenShed } from '../../helpers/lookout.ts'

const root = mkdtempSync(join(tmpdir(), 'lookout-semantic-test-'))
t.teardown(() => rmSync(root, { recursive: true, force: true }))
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.net', GIT_COMMITTER_NAME: 'Ada', GIT_COMMITTER_EMAIL: 'ada@example.net' }
const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env: gitEnv }).toString().trim()
const repo = join(root, 'svc')
function write(files: Record<string, string | Buffer>): void {
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(repo, p, '..'), { recursive: true })
    writeFileSync(join(repo, p), c)
  }
}
execFileSync('git', ['init', '-q', '-b', 'main', repo])
write({
  'src/http.ts': [
    "import { Socket } from 'node:net'",
    '',
    '/** Reads the status line and headers of a raw HTTP reply. */',
    'export function parseHttpResponse(raw: string): { status: number } {',
    '  return { status: Number(raw.slice(9, 12)) }',
    '}',
    '',
    'export class HttpClient {',
    '  // Sends a request and waits for the reply.',
    '  async send(request: string): Promise<string> {',
    '    return request',
    '  }',
    '}',
    '',
    'export const retryDelay = (attempt: number) => 2 ** attempt * 100',
    '',
  ].join('\n'),
  'tools/report.py': [
    'def parse_http_response(text):',
    '    """Turn raw text into a response object."""',
    '    return text',
    '',
    '',
    'class ReportWriter:',
    '    def write_rows(self, rows):',
    '        """Write the rows as CSV lines."""',
    '        return rows',
    '',
  ].join('\n'),
  'cmd/main.go': [
    'package main',
    '',
    '// StartServer listens on the address and serves until stopped.',
    'func StartServer(addr string) error {',
    '\treturn nil',
    '}',
    '',
    'type Config struct {',
    '\tAddr string',
    '}',
    '',
  ].join('\n'),
  'README.md': 'parseHttpResponse is documented here, but a README holds no definition\n',
  // Over the 512 KiB bound: counted, not parsed.
  'vendor/huge.js': `function hugeVendoredThing() {}\n${'// padding\n'.repeat(60_000)}`,
  // A NUL byte: binary, not source.
  'assets/blob.ts': Buffer.from([0x66, 0x00, 0x6e]),
})
git('add', '-A')
git('commit', '-qm', 'first')

const lk = await startTestLookout({ env: { LOOKOUT_REPOSITORY_ROOTS: root } })
t.teardown(() => lk.stop())
retryWhenShed(lk)
const P = `/v1/workspaces/${lk.workspaceId}`
const reg = await lk.req('POST', `${P}/resources`, { external_id: `repo-${randomUUID()}`, name: 'svc', kind: 'repository', details: { repository_url: repo } })
const rid = reg.body.id as string
const view = (q: string) => lk.req('GET', `${P}/resources/${rid}/repository?${q}`)
const semantic = (query: string, extra = '') => view(`view=semantic&query=${encodeURIComponent(query)}${extra}`)
for (let i = 0; ; i++) {
  const s = await view('view=status')
  if (s.status === 200 && s.body.state === 'ready') break
  if (i > 300) throw new Error(`the repository never became ready: ${JSON.stringify(s.body)}`)
  await new Promise((r) => setTimeout(r, 100))
}

t.test('definitions ranked by name, signature and doc comment, with file, line and kind', async (t) => {
  const r = await semantic('parse http response')
  t.equal(r.status, 200, JSON.stringify(r.body))
  t.match(r.body, { resource_id: rid, view: 'semantic', commit: git('rev-parse', 'HEAD'), query: 'parse http response' })
  const top = r.body.results.slice(0, 2).map((x: any) => [x.name, x.path, x.line, x.kind])
  t.same(top.sort(), [['parseHttpResponse', 'src/http.ts', 4, 'function'], ['parse_http_response', 'tools/report.py', 1, 'function']].sort(),
    'camelCase and snake_case names both match the words')
  t.match(r.body.results[0], { signature: String, doc: String, end_line: Number, score: Number })
  const ts = r.body.results.find((x: any) => x.name === 'parseHttpResponse')
  t.equal(ts.signature, 'export function parseHttpResponse(raw: string): { status: number }')
  t.equal(ts.doc, 'Reads the status line and headers of a raw HTTP reply.')
  t.match(r.body.index, { files: 3, languages: { typescript: 1, python: 1, go: 1 }, skipped_files: { too_large: 1, unparsed: 1, over_file_limit: 0 } })
  t.notOk(r.body.results.some((x: any) => x.path === 'README.md'), 'only parsed source has definitions')

  const csv = await semantic('csv')
  t.match(csv.body.results[0], { name: 'write_rows', kind: 'method', path: 'tools/report.py', line: 7 }, 'found by its docstring; a method of its class')
  const go = await semantic('listens on an address')
  t.match(go.body.results[0], { name: 'StartServer', kind: 'function', path: 'cmd/main.go', line: 4 }, 'found by its doc comment')
  t.match((await semantic('config')).body.results[0], { name: 'Config', kind: 'type', line: 8 })
  const client = await semantic('HttpClient')
  t.match(client.body.results[0], { name: 'HttpClient', kind: 'class', line: 8 }, 'the exact name first')
  t.ok(client.body.results.some((x: any) => x.name === 'send' && x.kind === 'method' && x.line === 10))
  t.match((await semantic('retry_delay')).body.results[0], { name: 'retryDelay', kind: 'function', line: 15, signature: 'export const retryDelay = (attempt: number) => 2 ** attempt * 100' }, 'an arrow function by its variable')
  t.same((await semantic('zebra quasar')).body, { ...(await semantic('zebra quasar')).body, results: [], total: 0, next_line: null }, 'no match is an empty page')
})

t.test('path, windows and the route\'s limits at their edges', async (t) => {
  const tools = await semantic('parse http response', '&path=tools')
  t.ok(tools.body.results.length > 0)
  t.ok(tools.body.results.every((x: any) => x.path.startsWith('tools/')), 'limited to the path')
  const all = (await semantic('parse http response')).body
  t.ok(all.total >= 2)
  const one = await semantic('parse http response', '&limit=1')
  t.equal(one.body.results.length, 1)
  t.equal(one.body.next_line, 2)
  const second = await semantic('parse http response', '&limit=1&line=2')
  t.same(second.body.results[0], all.results[1], 'the window starts at line')
  t.equal((await semantic('parse', '&limit=100')).status, 200)
  for (const [q, loc] of [['&limit=0', 'limit'], ['&limit=101', 'limit'], ['&line=0', 'line']] as const) {
    const r = await semantic('parse', q)
    t.equal(r.status, 422, q)
    t.same(r.body.detail[0].loc, ['query', loc])
  }
  t.equal((await semantic('x'.repeat(1000))).status, 200, 'a query of 1000 characters')
  const long = await semantic('x'.repeat(1001))
  t.equal(long.status, 422)
  t.same(long.body.detail[0].loc, ['query', 'query'])
  const none = await view('view=semantic')
  t.equal(none.status, 422, 'a query is needed')
  t.match(none.body.detail[0], { loc: ['query', 'query'], type: 'missing' })
  const noWord = await semantic('?? !!')
  t.equal(noWord.status, 422)
  t.match(noWord.body.detail[0].msg, /no word/)
})

t.test('a new commit is indexed on its own', async (t) => {
  write({ 'src/cache.ts': '/** Forgets entries older than the limit. */\nexport function evictStaleEntries(limit: number) { return limit }\n' })
  git('add', '-A')
  git('commit', '-qm', 'second')
  const head = git('rev-parse', 'HEAD')
  t.equal((await lk.req('POST', `${P}/resources/${rid}/repository/refresh`)).status, 200)
  for (let i = 0; ; i++) {
    const s = await view('view=status')
    if (s.body.head?.commit === head && s.body.state === 'ready') break
    if (i > 300) throw new Error('the refresh never finished')
    await new Promise((r) => setTimeout(r, 100))
  }
  const r = await semantic('evict stale')
  t.equal(r.body.commit, head)
  t.match(r.body.results[0], { name: 'evictStaleEntries', path: 'src/cache.ts', line: 2, kind: 'function' })
})
