// Debian's chromium driven by playwright-core for the console tests: one
// browser per test file, every request recorded (none may leave 127.0.0.1),
// console errors and failed requests collected per page, axe-core run in the
// page (evaluated through the driver, so the page's CSP stays in force).
import { mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'

export const SHOTS = join(import.meta.dirname, '..', '..', 'test-output', 'console')
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
}

export interface Watched {
  context: BrowserContext
  page: Page
  /** Requests to anything but 127.0.0.1. */
  offLoopback: string[]
  /** Console errors, failed requests and HTTP errors since the last clear(). */
  problems: string[]
  clear(): void
}

export async function watchedPage(browser: Browser, options: { timezoneId?: string } = {}): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'dark', ...options })
  const page = await context.newPage()
  const w: Watched = {
    context, page, offLoopback: [], problems: [],
    clear() {
      w.problems.length = 0
    },
  }
  context.on('request', (r) => {
    const host = new URL(r.url()).hostname
    if (host !== '127.0.0.1' && !r.url().startsWith('data:')) w.offLoopback.push(r.url())
  })
  page.on('console', (m) => { if (m.type() === 'error') w.problems.push(`console: ${m.text()}`) })
  page.on('pageerror', (e) => w.problems.push(`page error: ${e.message}`))
  page.on('requestfailed', (r) => {
    // A live tail the page closes itself (navigation, toggle) ends as an aborted request.
    if (r.url().includes('/logs/tail') && r.failure()?.errorText === 'net::ERR_ABORTED') return
    w.problems.push(`failed: ${r.url()} ${r.failure()?.errorText ?? ''}`)
  })
  page.on('response', (r) => { if (r.status() >= 400) w.problems.push(`HTTP ${r.status()}: ${r.url()}`) })
  return w
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: join(SHOTS, `${name}.png`) })
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE)
  const r = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(o?: object): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe
    return axe.run({ resultTypes: ['violations'] })
  })
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`)
}
