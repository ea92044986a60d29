// The explorer's ways to find a line faster (issue 34), in real Chromium
// against a real Lookout: filter by service.name from a row (only that
// service), chips that add, flip and remove filters, the facets panel, the
// lines around a hit, highlighted words, errors in words, the / shortcut, the
// light theme, and a copied link opened later in a fresh browser after
// signing in through the one-time link in the same tab.
import t from 'tap'
import { startTestLookout } from '../helpers/lookout.ts'
import { until as waitUntil } from '../helpers/until.ts'
import { axeViolations, launch, shot, watchedPage, type Watched } from './browser.ts'

const lk = await startTestLookout()
const browser = await launch()
t.teardown(async () => {
  await browser.close()
  await lk.stop()
})

const ws = lk.workspaceId
const rid = await lk.resource('shop')
const run = Math.random().toString(36).slice(2, 8)
const now = Date.now()
const SERVICES = ['checkout', 'payments']
const HOSTS = ['web-3', 'web-4']
// 40 lines over the last 20 minutes: service by i % 2, host by i % 4 < 2, status 500 on every fifth.
const lines = Array.from({ length: 40 }, (_, i) => ({
  i, service: SERVICES[i % 2] as string, host: HOSTS[i % 4 < 2 ? 0 : 1] as string, status: i % 5 === 0 ? '500' : '200',
  message: `${i % 5 === 0 ? 'payment declined' : 'request served'} line${i} ${run}`, ns: BigInt(now - 20 * 60_000 + i * 30_000) * 1_000_000n,
}))
async function send(ls: typeof lines): Promise<void> {
  const groups = new Map<string, typeof lines>()
  for (const l of ls) groups.set(`${l.service}|${l.host}`, [...(groups.get(`${l.service}|${l.host}`) ?? []), l])
  const body = {
    resourceLogs: [...groups.values()].map((g) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: g[0]?.service } }, { key: 'host.name', value: { stringValue: g[0]?.host } }] },
      scopeLogs: [{ logRecords: g.map((l) => ({ timeUnixNano: String(l.ns), severityNumber: l.status === '500' ? 17 : 9, body: { stringValue: l.message }, attributes: [{ key: 'http.status_code', value: { stringValue: l.status } }] })) }],
    })),
  }
  const r = await lk.req('POST', `/v1/workspaces/${ws}/resources/${rid}/otlp/v1/logs`, body)
  if (r.status !== 200) throw new Error(`not accepted: ${r.status}`)
}
await send(lines)
await lk.waitRows(rid, lines.length)

let main: Watched
const signInLink = async () => ((await lk.ownerReq('POST', '/admin/console/link', {})).body as { url: string }).url
const messages = async (w: Watched) => w.page.locator('tr.log td.c-msg').evaluateAll((tds) => tds.map((td) => td.childNodes[0]?.textContent ?? ''))
const shownIds = async (w: Watched) => (await w.page.locator('tr.log td.c-msg').allInnerTexts()).map((s) => Number(/line(\d+)/.exec(s)?.[1])).sort((a, b) => a - b)
const expect = (keep: (l: (typeof lines)[number]) => boolean) => lines.filter(keep).map((l) => l.i)
/** Waits for the list to show exactly the wanted lines (the search answers asynchronously). */
async function until(w: Watched, want: number[]): Promise<number[]> {
  let got: number[] = []
  for (let k = 0; k < 100; k++) {
    got = await shownIds(w)
    if (JSON.stringify(got) === JSON.stringify(want)) return got
    await w.page.waitForTimeout(100)
  }
  return got
}

t.test('filter by service.name from a row: only that service; chips add, flip and remove', async (t) => {
  main = await watchedPage(browser)
  const { page } = main
  await page.goto(await signInLink())
  await page.locator('.shell').waitFor()
  await page.goto(`${lk.url}/#/logs/${rid}?range=1h`)
  await page.locator('tr.log', { hasText: 'line39' }).waitFor()
  t.same(await until(main, expect(() => true)), expect(() => true), 'every line first')
  const row = page.locator('tr.log', { hasText: `line3 ${run}` })
  await row.click()
  await page.locator('tr.detail button[data-filter="resource.service.name"]').click()
  await page.waitForURL(/resource\.service\.name=payments/)
  t.same(await until(main, expect((l) => l.service === 'payments')), expect((l) => l.service === 'payments'), 'only that service')
  t.equal(await page.getByTestId('chip').count(), 1)
  t.match(await page.getByTestId('chip').innerText(), /service\.name = payments/)
  // AND: a second filter from another row narrows further.
  await page.locator('tr.log', { hasText: `line7 ${run}` }).click()
  await page.locator('tr.detail').getByRole('button', { name: 'Exclude http.status_code 200' }).click()
  await page.waitForURL(/-attr\.http\.status_code=200/)
  const both = expect((l) => l.service === 'payments' && l.status !== '200')
  t.same(await until(main, both), both, 'service AND not status 200')
  t.equal(await page.getByTestId('chip').count(), 2, 'two chips')
  await page.getByRole('button', { name: 'Include http.status_code 200' }).click()
  const flipped = expect((l) => l.service === 'payments' && l.status === '200')
  t.same(await until(main, flipped), flipped, 'the chip flipped to keep the value')
  await page.getByRole('button', { name: /^Remove filter service\.name/ }).click()
  const removed = expect((l) => l.status === '200')
  t.same(await until(main, removed), removed, 'the service filter removed')
  await page.getByRole('button', { name: /^Remove filter attr http\.status_code/ }).click()
  t.same(await until(main, expect(() => true)), expect(() => true), 'no filter left')
  t.equal(await page.getByTestId('chip').count(), 0)
  t.same(main.problems, [])
  t.same(await axeViolations(page), [], 'axe')
})

t.test('facets: top values beside the results, clicking one filters', async (t) => {
  const { page } = main
  await page.goto(`${lk.url}/#/logs/${rid}?range=1h`)
  const host = page.locator('.facet[data-field="resource.host.name"]')
  await host.getByRole('button', { name: 'web-4', exact: true }).waitFor()
  t.match(await host.innerText(), /web-3\s+−\s+20[\s\S]*web-4\s+−\s+20/, 'counts per host')
  await host.getByRole('button', { name: 'web-4', exact: true }).click()
  await page.waitForURL(/resource\.host\.name=web-4/)
  t.same(await until(main, expect((l) => l.host === 'web-4')), expect((l) => l.host === 'web-4'))
  const svc = page.locator('.facet[data-field="resource.service.name"]')
  await svc.getByRole('button', { name: 'Exclude checkout' }).click()
  await page.waitForURL(/-resource\.service\.name=checkout/)
  const want = expect((l) => l.host === 'web-4' && l.service !== 'checkout')
  t.same(await until(main, want), want, 'host AND not checkout')
  await page.locator('.facet-pick select').selectOption('attr.http.status_code')
  const status = page.locator('.facet[data-field="attr.http.status_code"]')
  await status.getByRole('button', { name: '500', exact: true }).waitFor()
  t.match(await status.innerText(), new RegExp(`500\\s+−\\s+${want.filter((i) => lines[i]?.status === '500').length}`), 'a picked attribute, counted under the filters')
  await shot(page, 'explorer-facets')
  t.same(main.problems, [])
})

t.test('the lines around a hit open in place, with more both ways', async (t) => {
  const { page } = main
  await page.goto(`${lk.url}/#/logs/${rid}?range=1h&q=${encodeURIComponent('declined')}`)
  await page.locator('tr.log', { hasText: 'line20' }).waitFor()
  t.equal(await page.locator('tr.log mark').first().innerText(), 'declined', 'the searched word is highlighted')
  const hit = page.locator('tr.log', { hasText: 'line20' })
  await hit.hover()
  await hit.getByRole('button', { name: 'Show context' }).click()
  await page.locator('tr.ctx-line').first().waitFor()
  t.equal(await page.locator('tr.log.hit').count(), 1, 'the hit is marked')
  const ctx = async () => (await page.locator('tr.ctx-line td.c-msg').allInnerTexts()).map((s) => Number(/line(\d+)/.exec(s)?.[1]))
  t.same(await ctx(), [30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10], 'ten newer above, ten older below, newest first')
  await page.getByRole('button', { name: 'Show older lines ↓' }).click()
  await page.getByRole('button', { name: 'Show older lines ↓' }).or(page.getByText('No older lines')).first().waitFor()
  for (let k = 0; k < 50 && (await ctx()).length < 30; k++) await page.waitForTimeout(100)
  t.same((await ctx()).slice(10), [19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0], 'paged outward to the first line')
  await page.getByText('No older lines').waitFor()
  await page.getByRole('button', { name: 'Show newer lines ↑' }).click()
  await page.getByText('No newer lines').waitFor()
  t.same((await ctx()).slice(0, 19), [39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21], 'and to the last')
  await shot(page, 'explorer-context')
  t.same(main.problems, [])
})

t.test('errors in words, the / shortcut, skip to results, the light theme', async (t) => {
  const { page } = main
  main.clear()
  await page.goto(`${lk.url}/#/logs/${rid}?range=1h&q=${encodeURIComponent('service:checkout')}`)
  const banner = page.getByRole('alert')
  await banner.waitFor()
  t.match(await banner.innerText(), /^Search: "service:checkout" looks like a field:value search.*resource\.service=checkout/, 'what is wrong, in words')
  main.clear()
  await page.locator('main').click({ position: { x: 5, y: 5 } })
  await page.keyboard.press('/')
  t.equal(await page.evaluate('document.activeElement?.getAttribute("name")'), 'q', '/ focuses the search box')
  await page.goto(`${lk.url}/#/logs/${rid}?range=1h`)
  await page.locator('tr.log').first().waitFor()
  await page.getByRole('link', { name: 'Skip to results' }).focus()
  await page.keyboard.press('Enter')
  t.equal(await page.evaluate('document.activeElement?.id'), 'results', 'skip to results')
  await page.getByRole('button', { name: 'Light theme' }).click()
  // Preact runs the effect that sets the attribute after the next paint, and the colours
  // follow at the next style pass: each is given 2 s. Polled through the driver, not with
  // page.waitForFunction, whose predicate runs on the page's eval that the CSP refuses.
  const read = (expression: string) => () => page.evaluate(expression)
  t.equal(await waitUntil('the light theme', read('document.documentElement.dataset.theme'), (v) => v === 'light', 2_000), 'light')
  t.equal(await waitUntil('the light colours', read('getComputedStyle(document.body).backgroundColor'), (v) => v === 'rgb(255, 255, 255)', 2_000), 'rgb(255, 255, 255)')
  t.same(await axeViolations(page), [], 'axe in the light theme')
  await shot(page, 'explorer-light')
  await page.getByRole('button', { name: 'Dark theme' }).click()
  t.same(main.problems, [])
})

t.test('a copied link freezes the range; opened later in a fresh browser after sign-in it shows the same lines', async (t) => {
  const { page } = main
  // The explorer is already open on another view: the rows on screen are the previous
  // view's until this one's search answers, so wait for that answer before reading them.
  const searched = page.waitForResponse((r) => r.url().includes('/logs?') && r.url().includes('resource.service.name=checkout'))
  await page.goto(`${lk.url}/#/logs/${rid}?range=15m&resource.service.name=checkout`)
  await searched
  await page.locator('tr.log').first().waitFor()
  let before = await messages(main)
  for (let k = 0; k < 20; k++) {
    await page.waitForTimeout(100)
    const again = await messages(main)
    if (again.join('\n') === before.join('\n')) break
    before = again
  }
  await page.getByRole('button', { name: 'Copy link' }).click()
  const link = await page.getByLabel('Link to this view').inputValue()
  t.match(link, /start=.*end=/, 'an absolute range')
  t.notMatch(link, /range=15m/)
  t.notMatch(link, /lkt_|signin/, 'no credential in the link')
  // Later: newer checkout lines arrive, which a relative "last 15 minutes" would show.
  const later = lines.slice(0, 2).map((l, k) => ({ ...l, i: 100 + k, message: `later line${100 + k} ${run}`, ns: BigInt(Date.now()) * 1_000_000n }))
  await send(later)
  await lk.waitRows(rid, lines.length + 2)
  const fresh = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  const p2 = await fresh.newPage()
  await p2.goto(link)
  await p2.locator('.signin').waitFor()
  // The one-time link in the same tab: only the # changes, the page is not reloaded.
  await p2.evaluate(`location.hash = ${JSON.stringify(new URL(await signInLink()).hash)}`)
  await p2.locator('tr.log').first().waitFor()
  t.equal(new URL(p2.url()).hash, new URL(link).hash, 'landed on the view it was sent')
  for (let k = 0; k < 50 && (await p2.locator('tr.log').count()) < before.length; k++) await p2.waitForTimeout(100)
  const shown = await p2.locator('tr.log td.c-msg').evaluateAll((tds) => tds.map((td) => td.childNodes[0]?.textContent ?? ''))
  t.same(shown, before, 'the same lines, none of the later ones')
  await fresh.close()
  t.same(main.problems, [])
})

t.test('saved searches: save, list, open; alert on this search opens the log-check form prefilled', async (t) => {
  const { page } = main
  await page.goto(`${lk.url}/#/logs/${rid}?range=1h&severity=ERROR&resource.host.name=web-3`)
  await page.locator('tr.log').first().waitFor()
  await page.getByRole('button', { name: 'Save search' }).click()
  await page.getByLabel('Name of the saved search').fill(`web-3 errors ${run}`)
  await page.getByRole('button', { name: 'Save', exact: true }).click()
  await page.getByText(`Saved as “web-3 errors ${run}”.`).waitFor()
  const saved = (await lk.req('GET', `/v1/workspaces/${ws}/saved-searches`)).body.items.find((s: any) => s.name === `web-3 errors ${run}`)
  t.same(saved.query, { range: { last: '1h' }, severity: 'ERROR', filters: [{ scope: 'resource', key: 'host.name', value: 'web-3', negate: false }] })
  await page.goto(`${lk.url}/#/logs/${rid}?range=15m`)
  await page.getByLabel('Open a saved search').selectOption({ label: `web-3 errors ${run}` })
  await page.waitForURL(/severity=ERROR/)
  t.match(page.url(), /resource\.host\.name=web-3/)
  // With the later line0 copy (web-3, ERROR) sent by the previous subtest.
  const want = [...expect((l) => l.host === 'web-3' && l.status === '500'), 100]
  t.same(await until(main, want), want, 'the saved view')
  const alert = await page.getByRole('link', { name: 'Alert on this search' }).getAttribute('href')
  t.match(alert, new RegExp(`^#/monitoring/new\\?kind=log&resource=${rid}&severity=ERROR&resource\\.host\\.name=web-3$`))
  t.same(main.problems, [])
  await main.context.close()
})
