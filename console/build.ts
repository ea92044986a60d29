// Builds the console: esbuild bundles console/src (Preact, uPlot) into hashed
// files, writes index.html pointing at them, and precompresses every asset
// (gzip and brotli) into console/dist (git-ignored). Run as a script
// (`node console/build.ts`) or through ensureBuilt() when the server starts.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

export const CONSOLE_DIR = dirname(fileURLToPath(import.meta.url))
export const SRC_DIR = join(CONSOLE_DIR, 'src')
export const DIST_DIR = join(CONSOLE_DIR, 'dist')

export interface AssetInfo {
  file: string
  type: string
  bytes: number
  gzipBytes: number
  brotliBytes: number
}

export interface Manifest {
  /** Digest of the sources the bundle was built from: a changed source rebuilds. */
  sourceHash: string
  builtAt: string
  /** Assets the first page load fetches (index.html's script, style sheet and icon). */
  entry: { js: string; css: string; icon: string }
  assets: Record<string, AssetInfo>
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
  '.png': 'image/png',
}

export function typeOf(file: string): string {
  const dot = file.lastIndexOf('.')
  return TYPES[file.slice(dot)] ?? 'application/octet-stream'
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) walk(p, out)
    else out.push(p)
  }
  return out
}

/** Digest of console/src and the versions of the bundled libraries. */
export function sourceHash(): string {
  const h = createHash('sha256')
  for (const f of walk(SRC_DIR)) h.update(relative(SRC_DIR, f)).update('\0').update(readFileSync(f)).update('\0')
  for (const pkg of ['preact', 'uplot']) {
    const path = join(CONSOLE_DIR, '..', 'node_modules', pkg, 'package.json')
    if (existsSync(path)) h.update(pkg + (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version)
  }
  return h.digest('hex').slice(0, 16)
}

export function readManifest(dir = DIST_DIR): Manifest | null {
  try {
    return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest
  } catch {
    return null
  }
}

function hashed(name: string, body: Buffer): string {
  const dot = name.lastIndexOf('.')
  const digest = createHash('sha256').update(body).digest('base64url').replace(/[-_]/g, '').slice(0, 10)
  return `${name.slice(0, dot)}-${digest}${name.slice(dot)}`
}

function indexHtml(entry: Manifest['entry']): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lookout</title>
<link rel="icon" href="/assets/${entry.icon}" type="image/svg+xml">
<link rel="stylesheet" href="/assets/${entry.css}">
<script type="module" src="/assets/${entry.js}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The Lookout console needs JavaScript.</noscript>
</body>
</html>
`
}

/** Builds into a fresh directory and moves it into place, so a reader never sees half a build. */
export async function buildConsole(dist = DIST_DIR): Promise<Manifest> {
  const esbuild = await import('esbuild')
  const tmp = `${dist}.tmp-${process.pid}-${Date.now()}`
  mkdirSync(tmp, { recursive: true })
  try {
    const result = await esbuild.build({
      entryPoints: { main: join(SRC_DIR, 'main.tsx') },
      bundle: true,
      minify: true,
      format: 'esm',
      target: ['chrome110', 'firefox110', 'safari16'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      write: false,
      outdir: tmp,
      logLevel: 'silent',
      legalComments: 'none',
    })
    const assets: Record<string, AssetInfo> = {}
    const entry = { js: '', css: '', icon: '' }
    const add = (name: string, body: Buffer) => {
      const file = hashed(name, body)
      const gz = gzipSync(body, { level: 9 })
      const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
      writeFileSync(join(tmp, file), body)
      writeFileSync(join(tmp, file + '.gz'), gz)
      writeFileSync(join(tmp, file + '.br'), br)
      assets[file] = { file, type: typeOf(file), bytes: body.length, gzipBytes: gz.length, brotliBytes: br.length }
      return file
    }
    for (const out of result.outputFiles) {
      const name = basename(out.path)
      const file = add(name, Buffer.from(out.contents))
      if (name.endsWith('.js')) entry.js = file
      if (name.endsWith('.css')) entry.css = file
    }
    entry.icon = add('icon.svg', readFileSync(join(SRC_DIR, 'icon.svg')))
    const html = Buffer.from(indexHtml(entry))
    writeFileSync(join(tmp, 'index.html'), html)
    writeFileSync(join(tmp, 'index.html.gz'), gzipSync(html, { level: 9 }))
    writeFileSync(join(tmp, 'index.html.br'), brotliCompressSync(html))
    const manifest: Manifest = { sourceHash: sourceHash(), builtAt: new Date().toISOString(), entry, assets }
    writeFileSync(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2))
    const old = `${dist}.old-${process.pid}-${Date.now()}`
    if (existsSync(dist)) renameSync(dist, old)
    try {
      renameSync(tmp, dist)
    } catch (err) {
      // Another process put its build in place first: keep that one.
      if (!existsSync(dist)) throw err
    }
    rmSync(old, { recursive: true, force: true })
    return manifest
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** The built console, building it first when it is missing or older than its sources. */
export async function ensureBuilt(dist = DIST_DIR): Promise<Manifest> {
  const m = readManifest(dist)
  if (m !== null && m.sourceHash === sourceHash()) return m
  return buildConsole(dist)
}

/** Compressed bytes of JS and CSS a first page load fetches (brotli, else gzip). */
export function firstLoadBytes(m: Manifest): { brotli: number; gzip: number } {
  let brotli = 0
  let gzip = 0
  for (const f of [m.entry.js, m.entry.css]) {
    const a = m.assets[f]
    if (a === undefined) continue
    brotli += a.brotliBytes
    gzip += a.gzipBytes
  }
  return { brotli, gzip }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const m = await buildConsole()
  const size = firstLoadBytes(m)
  process.stdout.write(`console built in ${relative(process.cwd(), DIST_DIR) || DIST_DIR}: ${m.entry.js}, ${m.entry.css}; first load ${size.brotli} B brotli, ${size.gzip} B gzip\n`)
}
