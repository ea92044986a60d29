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
