// A test's times follow the test's own clock: an event stamped with a literal
// date ages out of the retention one day and turns the suite red with no code
// change (issue 31). Every literal date or epoch in test/ and bench/ needs an
// explicit `pinned-date: <why>` marker, on its line or on a comment line
// heading its paragraph (the marker then covers lines up to the next blank one).
import t from 'tap'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const DIRS = ['test', 'bench']
const SKIP = new Set(['node_modules', 'data', 'dist', 'results'])

/** Calendar dates and date-times (1900-2099), epoch seconds/ms/µs/ns from 2001 on, and dates built from parts. */
const LITERAL = /\b(?:19|20)\d\d-[01]\d-[0-3]\d(?!\d)|(?<![\w.])(?:1[5-9]|20)\d{8}(?:\d{3}|\d{6}|\d{9})?n?(?![\w.])|\bDate\.UTC\(|\bnew Date\(\s*\d{4}\s*,/
const MARKER = /pinned-date:\s*(\S.{9,})/

export interface Finding { line: number; text: string }

/** The code of a line without its comment (a `//` after a space or at the start; `://` in URLs stays). */
function codeOf(line: string): string {
  const trimmed = line.trimStart()
  if (trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/*')) return ''
  const at = line.search(/(?:^|\s)\/\/\s/)
  return at < 0 ? line : line.slice(0, at)
}

/** The lines holding an unmarked literal date. */
export function literalDates(text: string): Finding[] {
  const out: Finding[] = []
  let covered = false
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    if (line.trim() === '') { covered = false; continue }
    const marked = MARKER.test(line)
    if (marked && codeOf(line).trim() === '') { covered = true; continue }
    if (covered || marked) continue
    if (LITERAL.test(codeOf(line))) out.push({ line: i + 1, text: line.trim() })
  }
  return out
}

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.name.startsWith('.') || SKIP.has(e.name)) continue
    if (e.isDirectory()) sources(p, out)
    else if (/\.tsx?$/.test(e.name)) out.push(p)
  }
  return out
}

t.test('the scanner finds what it looks for and honours the marker', async (t) => {
  const y = '20' + '26'
  t.same(literalDates(`send({ timestamp: '${y}-11-21T10:00:00Z' })`).length, 1, 'an ISO date-time')
  t.same(literalDates(`const ns = '1${'7'.repeat(9)}000000000'`).length, 1, 'epoch nanoseconds')
  t.same(literalDates(`hrTime: [1${'7'.repeat(9)}, 0]`).length, 1, 'epoch seconds')
  t.same(literalDates(`const d = new Date(${y}, 0, 1)`).length, 1, 'a date from parts')
  t.same(literalDates(`x('${y}-01-01') // pinned-date: a calendar date the code never compares with the clock`), [], 'marked on its line')
  t.same(literalDates(`// pinned-date: a test vector from the spec\nconst a = '${y}-01-01'\nconst b = '${y}-01-02'\n\nconst c = '${y}-01-03'`).map((f) => f.line), [5], 'a heading marker covers its paragraph only')
  t.same(literalDates(`x('${y}-01-01') // pinned-date: short`).length, 1, 'a marker without a reason does not count')
  t.same(literalDates(`// sent on ${y}-11-25\nconst u = 'http://h:${'1'.repeat(5)}/x'`), [], 'comments and ports are not payloads')
})

t.test('no test or benchmark sends a literal date without saying why', async (t) => {
  const found: string[] = []
  for (const dir of DIRS) {
    for (const file of sources(dir)) {
      for (const f of literalDates(readFileSync(join(root, file), 'utf8'))) found.push(`${file}:${f.line}: ${f.text.slice(0, 140)}`)
    }
  }
  t.same(found, [], 'derive the time from Date.now(), or mark the line with `pinned-date: <why>`')
})
