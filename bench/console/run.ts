// Console first-results time: how long from navigating to the log explorer
// until its first page of lines is on screen, in Debian's chromium, on the
// search benchmark's generated data (bench/search/generate.ts). See README.md.
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { loadConfig, startLookout } from '../../deploy/index.ts'
import { ALL_SCOPES, createToken, createWorkspace, registerResource } from '../../workspace/index.ts'
import { firstLoadBytes, ensureBuilt } from '../../console/internal.ts'
import { summarize } from '../lib/stats.ts'
import { insertSelect, rareLine, type Shape } from '../search/generate.ts'

const ROWS = Number(process.env.BENCH_ROWS ?? 2_000_000)
const RESOURCES = Number(process.env.BENCH_RESOURCES ?? 50)
const DAYS = Number(process.env.BENCH_DAYS ?? 7)
const RUNS = Number(process.env.BENCH_RUNS ?? 10)
const CHUNK = 2_000_000
const out = (s: string) => process.stdout.write(s + '\n')
const load1 = () => loadavg().map((x) => x.toFixed(2)).join(' ')

const manifest = await ensureBuilt()
const size = firstLoadBytes(manifest)
out(`machine: load average ${load1()} at start`)
out(`console bundle: first load ${size.brotli.toLocaleString('en')} B brotli, ${size.gzip.toLocaleString('en')} B gzip (JS+CSS; budget 204,800 B)`)

const dataDir = mkdtempSync(join(tmpdir(), 'lookout-console-bench-'))
const config = loadConfig({ ...process.env, LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '1', LOOKOUT_RETENTION_DAYS: String(DAYS) })
const lookout = await startLookout(config, { logger: false, roles: ['api'] })
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
})
try {
  const ws = (await createWorkspace(lookout.db, 'bench')).id
  const { token } = await createToken(lookout.db, { workspaceId: ws, scopes: ALL_SCOPES, resources: 'all' })
  const rids: string[] = []
  for (let i = 0; i < RESOURCES; i++) rids.push((await registerResource(lookout.db, ws, { external_id: `svc-${i}`, name: `svc-${i}` })).resource.id)
  const shape: Shape = { rows: ROWS, resources: RESOURCES, days: DAYS, endNs: BigInt(Date.now() - 60_000) * 1_000_000n }
  const t0 = performance.now()
  for (let off = 0; off < ROWS; off += CHUNK) {
    const q = insertSelect(`${lookout.store.database}.logs`, shape, off, Math.min(CHUNK, ROWS - off), ws, rids)
    await lookout.store.command(q.sql, q.params)
  }
  out(`generated ${ROWS.toLocaleString('en')} lines over ${RESOURCES} resources and ${DAYS} days in ${((performance.now() - t0) / 1000).toFixed(1)} s`)

  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  const page = await context.newPage()
  await page.goto(lookout.url + '/')
  await page.getByLabel('Access token').fill(token)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('.shell').waitFor()

  const rare = rareLine(3, shape)
  const shapes: [string, (i: number) => string][] = [
    ['newest lines, last hour (the default view)', (i) => `#/logs/${rids[i % RESOURCES]}`],
    ['ERROR and above, last 7 days', (i) => `#/logs/${rids[i % RESOURCES]}?range=7d&severity=ERROR`],
    ['rare term, last 7 days', () => `#/logs/${rids[rare.resource]}?range=7d&q=${rare.token}`],
  ]
  out(`\nfirst results after navigation (a full page load each time: HTML, JS, session, resources, the search and the histogram), ${RUNS} runs each`)
  out('| view | to first row on screen p50 / p90 / max (ms) | search response ends p50 (ms) |')
  out('| --- | --- | --- |')
  for (const [name, hash] of shapes) {
    const shown: number[] = []
    const searched: number[] = []
    for (let i = 0; i < RUNS + 1; i++) {
      await page.goto('about:blank')
      const start = Date.now()
      await page.goto(lookout.url + '/' + hash(i))
      await page.locator('tr.log').first().waitFor({ timeout: 30_000 })
      const wall = Date.now() - start
      const end = await page.evaluate(() => {
        const e = performance.getEntriesByType('resource').find((r) => /\/logs\?/.test(r.name))
        return e === undefined ? -1 : (e as unknown as { responseEnd: number }).responseEnd
      })
      if (i === 0) continue // warm-up: the first navigation compiles the bundle and warms the engine
      shown.push(wall)
      searched.push(end)
    }
    const s = summarize(shown)
    const r = summarize(searched)
    out(`| ${name} | ${s.p50.toFixed(0)} / ${s.p90.toFixed(0)} / ${s.max.toFixed(0)} | ${r.p50.toFixed(0)} |`)
  }
  out(`\nmachine: load average ${load1()} at end`)
} finally {
  await browser.close()
  await lookout.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
