// Every stable error code a stage can raise is documented in a README.
import t from 'tap'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import * as ingest from '../ingest/index.ts'
import * as api from '../api/index.ts'
import * as monitor from '../monitor/index.ts'
import * as query from '../query/index.ts'
import * as deploy from '../deploy/index.ts'
import * as collector from '../collector/index.ts'
import * as core from '../core/index.ts'
import * as workspace from '../workspace/index.ts'
import * as alerting from '../alerting/index.ts'
import * as desktop from '../desktop/index.ts'
import * as consoleStage from '../console/index.ts'

function readmes(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.') || name === 'data') continue
    const p = join(dir, name)
    if (statSync(p).isDirectory()) readmes(p, out)
    else if (name === 'README.md') out.push(readFileSync(p, 'utf8'))
  }
  return out
}

const docs = readmes('.').join('\n')
const catalogues: Record<string, Record<string, string>> = {}
for (const [stage, mod] of Object.entries({ core, ingest, query, monitor, workspace, alerting, desktop, console: consoleStage, api, deploy, collector })) {
  for (const [name, value] of Object.entries(mod)) {
    if (name.endsWith('_ERROR_CODES') && value !== null && typeof value === 'object') catalogues[`${stage}.${name}`] = value as Record<string, string>
  }
}

t.ok(Object.keys(catalogues).length >= 5, 'found the error catalogues of every stage that raises coded errors')
for (const [where, codes] of Object.entries(catalogues)) {
  for (const [code, meaning] of Object.entries(codes)) {
    t.ok(meaning.length > 10, `${where}: ${code} has a meaning`)
    t.ok(docs.includes(code), `${where}: ${code} is documented in a README`)
  }
}

// Every code a stage raises (a coded error made by the shared factory, or a code
// or 422 item type written into a body) is in that stage's catalogue or core's,
// and a factory's declared type is its code. Plain `class … extends Error` with
// nothing but a code are not used: the factory gives each its status once.
const STAGE_DIRS = ['core', 'tunnel', 'ingest', 'query', 'monitor', 'workspace', 'alerting', 'metrics', 'collector', 'desktop', 'console', 'api', 'deploy']
function sourcesOf(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (name === 'node_modules' || name === 'dist' || p === join('console', 'src')) continue
    if (statSync(p).isDirectory()) sourcesOf(p, out)
    else if (name.endsWith('.ts')) out.push(p)
  }
  return out
}
const FACTORY = /createError<\s*'(LOOKOUT_[A-Z_]+)'[^>]*>\(\s*'(LOOKOUT_[A-Z_]+)'/g
const WRITTEN = /\b(?:code|type):\s*'(LOOKOUT_[A-Z_]+)'/g
// (A class that carries more than a code, such as RequestInvalid's detail items, is its own thing.)
const PLAIN = /class\s+\w+\s+extends\s+Error\s*\{\s*readonly\s+code\s*=\s*'LOOKOUT_[A-Z_]+'\s*\}/g
const coreCodes = new Set(Object.keys(catalogues['core.CORE_ERROR_CODES'] ?? {}))
let raised = 0
for (const stage of STAGE_DIRS) {
  const own = new Set(Object.entries(catalogues).filter(([k]) => k.startsWith(`${stage}.`)).flatMap(([, v]) => Object.keys(v)))
  for (const file of sourcesOf(stage)) {
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(FACTORY)) {
      raised++
      t.equal(m[1], m[2], `${file}: the factory's declared code is its code (${m[2]})`)
      t.ok(own.has(m[2] ?? '') || coreCodes.has(m[2] ?? ''), `${file}: ${m[2]} is in the ${stage} or core catalogue`)
    }
    for (const m of text.matchAll(WRITTEN)) {
      raised++
      t.ok(own.has(m[1] ?? '') || coreCodes.has(m[1] ?? ''), `${file}: ${m[1]} is in the ${stage} or core catalogue`)
    }
    t.same(text.match(PLAIN) ?? [], [], `${file}: coded errors come from the shared factory, not a plain Error subclass`)
  }
}
t.ok(raised > 50, `read the codes the stages raise (${raised})`)
