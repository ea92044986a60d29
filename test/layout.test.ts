// The import boundaries of README "Layout": a stage reaches another only through
// its index.ts, only along the allowed edges, and nothing reaches up to the edge.
// Tests and benchmarks may also use a stage's internal surface (internal.ts: its
// index.ts plus what only they need); production stages may not, and a stage's
// index.ts holds only what other production stages use.
import t from 'tap'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'

/** Which stages each stage may import (README "Layout"); test/ is free to import anything. */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  tunnel: ['core'],
  ingest: ['core'],
  query: ['core', 'ingest'],
  monitor: ['core', 'tunnel'],
  workspace: ['core', 'tunnel'],
  alerting: ['core', 'monitor', 'workspace'],
  metrics: ['core', 'ingest', 'monitor', 'alerting'],
  collector: ['core', 'monitor'],
  desktop: ['core', 'ingest', 'query', 'monitor', 'workspace', 'alerting'],
  console: ['core'],
  api: ['core', 'tunnel', 'ingest', 'query', 'monitor', 'workspace', 'alerting', 'metrics', 'desktop', 'console'],
  deploy: ['core', 'tunnel', 'ingest', 'query', 'monitor', 'workspace', 'alerting', 'metrics', 'desktop', 'console', 'collector', 'api'],
  bench: ['core', 'tunnel', 'ingest', 'query', 'monitor', 'workspace', 'alerting', 'metrics', 'desktop', 'console', 'collector', 'api', 'deploy', 'test'],
}
/** Loaded on demand only (`lookout bench`): a dynamic import, so no static cycle. */
const DYNAMIC_ONLY: Record<string, readonly string[]> = { deploy: ['bench'] }

const root = new URL('..', import.meta.url).pathname
// console/src is the browser bundle's source: it imports no server stage, and esbuild checks it.
const SKIP = new Set(['node_modules', 'data', 'dist', 'console/src'])

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.name.startsWith('.') || SKIP.has(e.name) || SKIP.has(p)) continue
    if (e.isDirectory()) sources(p, out)
    else if (/\.tsx?$/.test(e.name)) out.push(p)
  }
  return out
}

const STATIC = /^\s*(?:import|export)\b[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/gm
const DYNAMIC = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g
const stageOf = (p: string): string => p.split('/')[0] ?? ''

interface Edge { from: string; to: string; dynamic: boolean }

function edges(file: string): Edge[] {
  const text = readFileSync(join(root, file), 'utf8')
  const out: Edge[] = []
  for (const [re, dynamic] of [[STATIC, false], [DYNAMIC, true]] as const) {
    for (const m of text.matchAll(re)) out.push({ from: file, to: normalize(join(dirname(file), m[1] ?? '')), dynamic })
  }
  return out
}

/** Why an edge breaks the rules, or null. */
function judge(e: Edge): string | null {
  const stage = stageOf(e.from)
  const target = stageOf(e.to)
  const allowed = ALLOWED[stage]?.includes(target) === true || (e.dynamic && DYNAMIC_ONLY[stage]?.includes(target) === true)
  if (!allowed) return `${e.from} -> ${e.to}: ${stage} may not import ${target}`
  // A benchmark folder's index.ts is its entry (the sizing harness behind `lookout bench`).
  const surface = target === 'bench' ? /^bench\/[\w-]+\/index\.ts$/.test(e.to) : e.to === `${target}/index.ts`
  if (e.to === `${target}/internal.ts`) return stage === 'bench' ? null : `${e.from} -> ${e.to}: ${target}/internal.ts is for tests and benchmarks only`
  if (target !== 'test' && !surface) return `${e.from} -> ${e.to}: not through ${target}/index.ts`
  return null
}

const problems: string[] = []
let checked = 0
for (const stage of Object.keys(ALLOWED)) {
  for (const file of sources(stage)) {
    for (const e of edges(file)) {
      const target = stageOf(e.to)
      if (target === stage || !(target in ALLOWED || target === 'test') || e.to.endsWith('.md')) continue
      checked++
      const why = judge(e)
      if (why !== null) problems.push(why)
    }
  }
}

t.ok(checked > 100, `checked ${checked} cross-stage imports`)
t.same(problems, [], 'every cross-stage import goes through an allowed stage surface')

t.test('the rules themselves form no cycle', async (t) => {
  const seen = new Set<string>()
  const visiting = new Set<string>()
  const cycle: string[] = []
  const visit = (s: string): void => {
    if (seen.has(s)) return
    if (visiting.has(s)) { cycle.push(s); return }
    visiting.add(s)
    for (const d of ALLOWED[s] ?? []) if (d !== 'test') visit(d)
    visiting.delete(s)
    seen.add(s)
  }
  for (const s of Object.keys(ALLOWED)) visit(s)
  t.same(cycle, [])
})

t.test('the checker catches a deep import, a forbidden edge and a static harness import', async (t) => {
  t.match(judge({ from: 'desktop/x.ts', to: 'workspace/projects/store/items.ts', dynamic: false }), /not through workspace\/index.ts/)
  t.match(judge({ from: 'workspace/x.ts', to: 'api/index.ts', dynamic: false }), /workspace may not import api/)
  t.match(judge({ from: 'core/x.ts', to: 'ingest/index.ts', dynamic: false }), /core may not import ingest/)
  t.match(judge({ from: 'deploy/cli.ts', to: 'bench/ingest/index.ts', dynamic: false }), /deploy may not import bench/)
  t.equal(judge({ from: 'deploy/cli.ts', to: 'bench/ingest/index.ts', dynamic: true }), null)
  t.equal(judge({ from: 'desktop/x.ts', to: 'workspace/index.ts', dynamic: false }), null)
  t.match(judge({ from: 'desktop/x.ts', to: 'workspace/internal.ts', dynamic: false }), /internal.ts is for tests and benchmarks only/)
  t.equal(judge({ from: 'bench/x/run.ts', to: 'workspace/internal.ts', dynamic: false }), null)
})

/** The files of a stage whose static imports (type-only ones included) go round in a circle. */
function fileCircles(): string[] {
  const graph = new Map<string, string[]>()
  for (const stage of Object.keys(ALLOWED)) {
    if (stage === 'bench') continue
    for (const file of sources(stage)) {
      graph.set(file, [...readFileSync(join(root, file), 'utf8').matchAll(STATIC)].map((m) => normalize(join(dirname(file), m[1] ?? ''))))
    }
  }
  // Tarjan's strongly connected components: every component of more than one file is a circle.
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const circles: string[] = []
  const connect = (v: string): void => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        connect(w)
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0))
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string | undefined
    do {
      w = stack.pop()
      if (w !== undefined) { onStack.delete(w); component.push(w) }
    } while (w !== undefined && w !== v)
    if (component.length > 1) circles.push(component.sort().join(' <-> '))
  }
  for (const v of graph.keys()) if (!index.has(v)) connect(v)
  return circles.sort()
}

/** Circles left to break: none; an entry here would have to go when its circle does. */
const KNOWN_CIRCLES: readonly string[] = []

t.test('no files import each other in a circle', async (t) => {
  const circles = fileCircles()
  t.same(circles.filter((c) => !KNOWN_CIRCLES.includes(c)), [], 'no new circle')
  t.same(KNOWN_CIRCLES.filter((c) => !circles.includes(c)), [], 'every known circle still exists (remove the broken ones)')
})

// ---- each index.ts holds what other production stages use ----

const EXPORT_LIST = /^export\s+(?:type\s+)?\{([^}]*)\}\s*from/gm
const IMPORT_LIST = /(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"](\.{1,2}\/[^'"]+)['"]/g
const namesOf = (list: string, side: 0 | 1): string[] =>
  list.split(',').map((p) => p.trim().replace(/^type\s+/, '')).filter((p) => p !== '').map((p) => p.split(/\s+as\s+/)[side === 0 ? 0 : p.split(/\s+as\s+/).length - 1] as string)
/** Names a surface keeps without a static import: stage catalogues (read whole by test/errors-documented.test.ts) and dynamic imports. */
const KEPT = (name: string): boolean => name.endsWith('_ERROR_CODES') || name === 'mcpCommand' || name === 'collectorCommand'

/** Names of each stage's index.ts that no other production stage imports. */
function unusedPublicNames(): string[] {
  const used = new Map<string, Set<string>>()
  for (const stage of Object.keys(ALLOWED)) {
    if (stage === 'bench') continue
    for (const file of sources(stage)) {
      for (const m of readFileSync(join(root, file), 'utf8').matchAll(IMPORT_LIST)) {
        const to = normalize(join(dirname(file), m[2] ?? ''))
        const target = stageOf(to)
        if (target === stage || to !== `${target}/index.ts`) continue
        const set = used.get(target) ?? new Set<string>()
        for (const n of namesOf(m[1] ?? '', 0)) set.add(n)
        used.set(target, set)
      }
    }
  }
  const out: string[] = []
  // deploy composes the process: its surface is the tests' and the benchmarks', nothing imports it.
  for (const stage of Object.keys(ALLOWED).filter((s) => s !== 'bench' && s !== 'deploy')) {
    const text = readFileSync(join(root, stage, 'index.ts'), 'utf8')
    for (const m of text.matchAll(EXPORT_LIST)) {
      for (const n of namesOf(m[1] ?? '', 1)) if (!KEPT(n) && used.get(stage)?.has(n) !== true) out.push(`${stage}: ${n}`)
    }
  }
  return out.sort()
}

t.test('a stage\'s index.ts exports only what another production stage imports (tests and benchmarks use internal.ts)', async (t) => {
  t.same(unusedPublicNames(), [], 'no name of a public surface serves only tests, benchmarks or nobody')
  for (const stage of Object.keys(ALLOWED)) {
    let text: string
    try { text = readFileSync(join(root, stage, 'internal.ts'), 'utf8') } catch { continue }
    t.match(text, /^export \* from '\.\/index\.ts'$/m, `${stage}/internal.ts extends the public surface`)
  }
})
