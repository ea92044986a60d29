// The console bundle: built from the sources by esbuild (nothing by hand),
// within its budget of 200 KB compressed JS+CSS on first load, precompressed
// copies that decompress to the originals, its own typecheck, and its copy of
// the log event type written from the row model (query/event-type.ts).
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { DIST_DIR, ensureBuilt, firstLoadBytes } from '../../console/internal.ts'
import { renderLogEventType } from '../../query/internal.ts'

const BUDGET = 200 * 1024

t.test('the browser\'s LogEvent is the one written from the row model', async (t) => {
  const file = readFileSync(new URL('../../console/src/log-event.ts', import.meta.url), 'utf8')
  t.equal(file, renderLogEventType(), 'regenerate with: node query/event-type.ts > console/src/log-event.ts')
})

t.test('first load within 200 KB compressed', async (t) => {
  const m = await ensureBuilt()
  const size = firstLoadBytes(m)
  t.comment(`first load: ${size.brotli} B brotli, ${size.gzip} B gzip (budget ${BUDGET} B)`)
  t.ok(size.gzip > 0 && size.gzip <= BUDGET, `gzip ${size.gzip} B <= ${BUDGET} B`)
  t.ok(size.brotli > 0 && size.brotli <= BUDGET, `brotli ${size.brotli} B <= ${BUDGET} B`)
  const html = readFileSync(join(DIST_DIR, 'index.html'), 'utf8')
  const referenced = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+)"/g)].map((x) => x[1])
  t.same(referenced.sort(), [m.entry.css, m.entry.icon, m.entry.js].sort(), 'index.html loads exactly the entry assets')
  t.notMatch(html, /https?:\/\//, 'no absolute URL: nothing from another host')
  // Fonts and images from elsewhere would come through the style sheet (the browser test records every request).
  t.notMatch(readFileSync(join(DIST_DIR, m.entry.css), 'utf8'), /url\(\s*['"]?(https?:)?\/\//, 'the style sheet loads nothing from another host')
  for (const f of [m.entry.js, m.entry.css]) {
    const raw = readFileSync(join(DIST_DIR, f))
    t.ok(gunzipSync(readFileSync(join(DIST_DIR, f + '.gz'))).equals(raw), `${f}.gz`)
    t.ok(brotliDecompressSync(readFileSync(join(DIST_DIR, f + '.br'))).equals(raw), `${f}.br`)
  }
})

t.test('the browser sources typecheck (their own tsconfig: DOM, JSX)', async (t) => {
  // The native compiler binary itself: the runner's loader hooks would break a child `node` running tsc.js.
  const root = join(import.meta.dirname, '..', '..')
  const module = pathToFileURL(join(root, 'node_modules', 'typescript', 'lib', 'getExePath.js')).href
  const getExePath = ((await import(module)) as { default: () => string }).default
  t.doesNotThrow(() => execFileSync(getExePath(), ['--noEmit', '-p', 'console/src'], { cwd: root, stdio: 'pipe' }))
})
