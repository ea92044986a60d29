// The console's on-call pages in a real browser (Debian chromium through
// playwright-core) against a real Lookout on loopback: the overview first after
// sign-in with a down check on a second resource, "failing, not yet confirmed"
// before confirmation, the incident page with its timeline and delivered alert,
// the inbox with its unread count, the UTC/local toggle kept in the URL, the
// check form's fields and errors, and a heartbeat check's push URL and token.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { closedPort, startHttpReceiver, waitFor } from '../alerting/alerts/receivers.ts'
import { tcpCheck, verifiedWebhook, startOnCallLookout } from '../helpers/on-call.ts'
import { startHttps } from '../helpers/servers.ts'
import { axeViolations, launch, shot, watchedPage, type Watched } from './browser.ts'

const http = await startHttpReceiver()
const lk = await startOnCallLookout()
const browser = await launch()
t.teardown(async () => {
  await browser.close()
  await lk.stop()
  await http.close()
})
const ws = lk.workspaceId
const P = (rid: string) => `/v1/workspaces/${ws}/resources/${rid}`
// The first resource is the one every per-resource page opens on; the down check is on the second.
const front = await lk.resource('front-door')
const back = await lk.resource('back-office')
await verifiedWebhook(lk, back, http, '/pager')
const downCheck = await tcpCheck(lk, back, await closedPort())
const offLoopback: string[] = []
let main: Watched

t.test('the overview is the first page after sign-in: the down check of the second resource, its incident and the alert sent', async (t) => {
  const link = (await lk.ownerReq('POST', '/admin/console/link', {})).body as { url: string }
  // A zone with no summer time and a half-hour offset: local times cannot pass for UTC.
  main = await watchedPage(browser, { timezoneId: 'Asia/Kolkata' })
  const { page } = main
  await page.goto(link.url)
  await page.locator('.shell').waitFor()
  t.match(page.url(), /#\/overview$/, 'the overview is the landing page')
  const row = page.locator(`tr[data-check="${downCheck}"]`)
  await row.locator('[data-state=down]').waitFor({ timeout: 30_000 })
  t.equal(await row.getAttribute('data-resource'), back)
  t.match(await row.innerText(), /back-office/)
  t.match(await row.innerText(), /since \d\d:\d\d:\d\d UTC, \d+ (s|min)/, 'exact time with its zone, and the duration')
  t.match(await row.locator('td.num').innerText(), /^—$/, 'a down check has no latency')
  const incident = page.locator('tr[data-incident]', { hasText: 'port' })
  await incident.waitFor()
  t.match(await incident.innerText(), /back-office/)
  await page.locator('tr[data-delivery] [data-result=delivered]').first().waitFor({ timeout: 30_000 })
  t.match(await page.locator('tr[data-delivery]').first().innerText(), /opened\s+webhook\s+\/pager/)
  t.equal(await page.getByLabel('Resource').count(), 0, 'no resource picker to switch')
  await shot(page, 'overview')
  t.same(main.problems, [], 'no console errors or failed requests')
  t.same(await axeViolations(page), [], 'axe: no serious or critical violation')
})

t.test('the UTC/local toggle is kept in the URL, across pages', async (t) => {
  const { page } = main
  main.clear()
  await page.getByRole('button', { name: 'Local' }).click()
  await page.waitForURL(/tz=local/)
  await page.locator(`tr[data-check="${downCheck}"]`, { hasText: /since \d\d:\d\d:\d\d GMT\+5:30/ }).waitFor()
  await page.getByRole('link', { name: 'Monitoring' }).click()
  await page.waitForURL(/#\/monitoring\?tz=local$/)
  await page.getByRole('link', { name: 'Overview' }).click()
  await page.waitForURL(/#\/overview\?tz=local$/)
  await page.getByRole('button', { name: 'UTC' }).click()
  await page.waitForURL((u) => !u.hash.includes('tz='))
  await page.locator(`tr[data-check="${downCheck}"]`, { hasText: /since \d\d:\d\d:\d\d UTC/ }).waitFor()
  t.same(main.problems, [])
})

t.test('the incident page: timeline from the confirming observations to the delivered alert, then acknowledged', async (t) => {
  const { page } = main
  main.clear()
  await page.locator('tr[data-incident] a', { hasText: 'port' }).first().click()
  await page.waitForURL(new RegExp(`#/incident/${back}/[0-9a-f-]{36}`))
  const timeline = page.locator('ol.timeline')
  await timeline.locator('[data-type=notification]', { hasText: 'delivered' }).waitFor({ timeout: 30_000 })
  const types = await timeline.locator('li').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-type')))
  t.same(types.slice(0, 3), ['observation', 'observation', 'opened'], 'two failed observations confirmed it, then it opened')
  t.match(await timeline.innerText(), /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/, 'one date format')
  await page.locator('.uptime i.u-down').first().waitFor()
  await page.getByTestId('ack').getByRole('button', { name: 'Acknowledge' }).click()
  await page.getByTestId('ack').filter({ hasText: /by (you|staff #1)/ }).waitFor()
  await timeline.locator('[data-type=acknowledged]').waitFor()
  await shot(page, 'incident')
  t.same(main.problems, [])
  t.same(await axeViolations(page), [])
})

t.test('the inbox: the incident\'s notification unread, the count beside the link, mark read and all read', async (t) => {
  const { page } = main
  main.clear()
  await page.getByRole('link', { name: /^Inbox/ }).click()
  const item = page.locator('tr[data-notification].unread', { hasText: 'back-office' }).first()
  await item.waitFor({ timeout: 30_000 })
  const count = async () => Number(/(\d+) unread/.exec(await page.getByTestId('unread-count').innerText())?.[1] ?? 0)
  const before = await count()
  t.ok(before >= 1, `${before} unread`)
  t.match(await page.getByTestId('unread-badge').innerText(), new RegExp(`\\b${before}$`), 'the same count beside the Inbox link')
  await shot(page, 'inbox')
  const id = await item.getAttribute('data-notification')
  const row = page.locator(`tr[data-notification="${id}"]`)
  await row.getByRole('button', { name: 'Mark read' }).click()
  await page.getByTestId('unread-count').filter({ hasText: before - 1 === 0 ? 'nothing unread' : `${before - 1} unread` }).waitFor()
  t.notOk(await row.evaluate((r) => r.classList.contains('unread')), 'shown as read')
  await row.getByRole('button', { name: 'Mark unread' }).click()
  await page.getByTestId('unread-count').filter({ hasText: `${before} unread` }).waitFor()
  await page.getByRole('button', { name: 'Mark all read' }).click()
  await page.getByTestId('unread-count').filter({ hasText: 'nothing unread' }).waitFor()
  t.equal(await page.getByTestId('unread-badge').count(), 0, 'no badge when nothing is unread')
  // Read marks are per reader: asked as the session, from the page.
  const unread = await page.evaluate(async (u) => ((await (await fetch(u)).json()) as { unread_count: number }).unread_count, `/v1/workspaces/${ws}/notifications?filter=unread`)
  t.equal(unread, 0, 'the marks are the server\'s')
  const other = await lk.req('GET', `/v1/workspaces/${ws}/notifications?filter=unread`)
  t.ok(other.body.unread_count >= 1, 'another reader\'s marks are its own')
  t.same(main.problems, [])
  t.same(await axeViolations(page), [])
})

t.test('a collector-fed check: "failing, not yet confirmed" after one failed probe, down after the second', async (t) => {
  const { page } = main
  const enrolled = await lk.req('POST', `${P(front)}/monitoring/sources`, { action: 'enroll', kind: 'collector', name: 'dc-1' })
  const check = await lk.req('POST', `${P(front)}/monitoring`, {
    name: 'orders db', kind: 'tcp', location: 'collector', source_id: enrolled.body.source.id, configuration: { host: '10.0.0.5', port: 5432, interval_seconds: 60 },
  })
  t.equal(check.status, 200)
  const push = async () => {
    const r = await lk.req('POST', '/v1/collector/observations', { observations: [{
      id: randomUUID(), check_id: check.body.id, revision: check.body.revision, observed_at: new Date().toISOString(),
      status: 'down', code: 'LOOKOUT_PROBE_REFUSED', reason: 'connect ECONNREFUSED 10.0.0.5:5432', latency_ms: 0.4,
    }] }, { authorization: `Bearer ${enrolled.body.token}` })
    t.equal(r.status, 200, JSON.stringify(r.body))
  }
  main.clear()
  await push()
  await page.goto(`${lk.url}/#/monitoring/${front}`)
  const row = page.locator(`tr[data-check="${check.body.id}"]`)
  await row.locator('[data-state=failing]').waitFor()
  t.match(await row.innerText(), /Failing, not yet confirmed\s+since \d\d:\d\d:\d\d UTC/)
  t.equal(await row.getByTestId('latency').innerText(), '—', 'no latency for a failed probe')
  await page.goto(`${lk.url}/#/overview`)
  await page.locator(`tr[data-check="${check.body.id}"] [data-state=failing]`).waitFor()
  await shot(page, 'overview-failing')
  await push()
  await page.locator(`tr[data-check="${check.body.id}"] [data-state=down]`).waitFor({ timeout: 15_000 })
  t.same(main.problems, [])
})

t.test('the check form: fields per kind, every problem at once, each at its field', async (t) => {
  const { page } = main
  main.clear()
  await page.goto(`${lk.url}/#/monitoring/${front}`)
  await page.getByRole('link', { name: 'New check' }).click()
  await page.getByLabel('Kind').selectOption('tcp')
  await page.getByLabel('Host').fill('')
  await page.getByLabel('Port').fill('0')
  await page.getByRole('button', { name: 'Create check' }).click()
  const banner = page.locator('.check-form .error.banner')
  await banner.waitFor()
  const text = await banner.innerText()
  t.match(text, /Name: Field required/)
  t.match(text, /Host: /)
  t.match(text, /Port: Input should be greater than or equal to 1/)
  t.equal(await page.locator('.check-form [aria-invalid=true]').count(), 3, 'name, host and port marked')
  await shot(page, 'check-form-errors')
  t.same(await axeViolations(page), [])
  // The postgresql template as offered is accepted: only a name added.
  await page.getByLabel('Kind').selectOption('postgresql')
  await page.getByLabel('Name').fill('orders primary')
  main.clear() // the 422 above was the point
  await page.getByRole('button', { name: 'Create check' }).click()
  const created = page.locator('tr[data-check]', { hasText: 'orders primary' })
  await created.waitFor()
  t.equal(await page.locator('.check-form').count(), 0, 'the form closed')
  // Delete offers a second step before it acts.
  await created.getByRole('button', { name: 'Edit' }).click()
  await page.getByRole('button', { name: 'Delete check' }).click()
  await page.getByRole('group', { name: 'Confirm deletion' }).waitFor()
  await shot(page, 'check-form-delete')
  await page.getByRole('button', { name: 'Yes, delete' }).click()
  await created.waitFor({ state: 'detached' })
  t.notOk((await lk.req('GET', `${P(front)}/monitoring`)).body.checks.some((c: { name: string }) => c.name === 'orders primary'), 'gone from the API too')
  t.same(main.problems, [])
})

t.test('a heartbeat check: push URL and token shown once with an example; the token beats; a missed beat is drawn apart from no data', async (t) => {
  const { page } = main
  main.clear()
  await page.goto(`${lk.url}/#/monitoring/new?resource=${back}&kind=heartbeat`)
  await page.getByLabel('Name').fill('nightly backup')
  await page.getByLabel('A beat expected every (seconds)').fill('1')
  await page.getByLabel('Grace (seconds)').fill('0')
  await page.getByRole('button', { name: 'Create check' }).click()
  const panel = page.getByTestId('heartbeat-secret')
  await panel.waitFor()
  t.equal(await page.getByTestId('push-url').innerText(), `POST ${lk.url}/v1/heartbeat`)
  const token = await page.getByTestId('push-token').innerText()
  t.match(token, /^lkt_/)
  const example = await page.getByTestId('push-example').innerText()
  t.match(example, new RegExp(`curl -fsS -X POST ${lk.url}/v1/heartbeat`))
  t.ok(example.includes(token), 'the example carries the token')
  await shot(page, 'heartbeat-created')
  const checkId = /"check_id":"([0-9a-f-]{36})"/.exec(example)?.[1]
  const beat = await fetch(`${lk.url}/v1/heartbeat`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ resource_id: back, check_id: checkId }),
  })
  t.equal(beat.status, 200, 'the token shown sends beats')
  await page.getByRole('button', { name: 'I have copied it, close' }).click()
  t.equal(await page.getByText(token).count(), 0, 'the token is gone from the page')
  // No more beats: each second is a missed one.
  const bar = page.locator(`tr[data-check="${checkId}"] .uptime`)
  await bar.locator('i.u-missing').first().waitFor({ timeout: 60_000 }).catch(async (err: Error) => {
    const api = (await lk.req('GET', `${P(back)}/monitoring/results?check_id=${checkId}&limit=5`)).body
    throw new Error(`${err.message.split('\n')[0]}; bar: ${await bar.getAttribute('aria-label')}; results: ${JSON.stringify(api)}`)
  })
  const looks = await bar.evaluate((el) => {
    // Runs in the page: the DOM's getComputedStyle, which Node's types do not declare.
    const css = (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundImage: string; backgroundColor: string } }).getComputedStyle
    const style = (sel: string) => { const i = el.querySelector(sel); return i === null ? '' : `${css(i).backgroundImage}|${css(i).backgroundColor}` }
    return { missing: style('i.u-missing'), none: style('i.u-none') }
  })
  t.not(looks.missing, looks.none, 'a missed heartbeat does not look like an empty slot')
  t.match(await bar.getAttribute('aria-label'), /missed heartbeat/)
  await shot(page, 'monitoring-heartbeat')
  t.same(main.problems, [])
  t.same(await axeViolations(page), [])
})

t.test('a log check made from the explorer\'s current query goes down when matching lines arrive; its incident page shows them', async (t) => {
  const { page } = main
  main.clear()
  await page.goto(`${lk.url}/#/logs/${front}?range=15m&q=${encodeURIComponent('payment declined')}&severity=ERROR`)
  await page.getByText('No log lines match in this range.').waitFor()
  // What the explorer's "alert on this search" opens: the log-check form with the current query (console/README.md).
  const current = new URLSearchParams(new URL(page.url()).hash.split('?')[1])
  await page.goto(`${lk.url}/#/monitoring/new?${new URLSearchParams({ kind: 'log', resource: front, q: current.get('q') ?? '', severity: current.get('severity') ?? '' })}`)
  t.equal(await page.getByLabel('Search (as in the explorer)').inputValue(), 'payment declined')
  t.equal(await page.getByLabel('Severity (at least)').inputValue(), 'ERROR')
  t.equal(await page.getByLabel('Name').inputValue(), 'log: payment declined')
  await page.getByLabel('Threshold (lines)').fill('2')
  await page.getByLabel('Window (seconds)').fill('60')
  await page.getByLabel('Every (seconds)').fill('2')
  await shot(page, 'log-check-form')
  await page.getByRole('button', { name: 'Create check' }).click()
  const row = page.locator('tr[data-check]', { hasText: 'log: payment declined' })
  await row.locator('[data-state=up]').waitFor({ timeout: 30_000 })
  t.match(await row.innerText(), /"payment declined" ≥ ERROR above 2 in 60 s/)
  const lines = [1, 2, 3, 4, 5].map((n) => ({ message: `payment declined for order ${n}`, severity: 'ERROR' }))
  const sent = await lk.req('POST', `${P(front)}/logs`, { events: [...lines, { message: 'payment accepted', severity: 'ERROR' }] })
  t.ok(sent.status === 200 || sent.status === 202, `ingest answered ${sent.status}`)
  await row.locator('[data-state=down]').waitFor({ timeout: 60_000 })
  await row.getByRole('link', { name: 'Incident' }).click()
  const evidence = page.getByTestId('log-evidence')
  await evidence.waitFor()
  t.match(await evidence.innerText(), /5 lines matched q=payment declined, severity=ERROR from \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/)
  const shown = await evidence.locator('tr.sample .c-msg').allInnerTexts()
  t.same([...shown].sort(), lines.map((l) => l.message).sort(), 'the matching lines, not the other one')
  await shot(page, 'incident-log')
  t.same(await axeViolations(page), [])
  await evidence.getByRole('link', { name: 'Open these lines in the explorer' }).click()
  await page.waitForURL(/#\/logs\//)
  await page.locator('tr.log', { hasText: 'payment declined for order 5' }).waitFor()
  t.equal(await page.locator('tr.log').count(), 5, 'the explorer shows exactly the lines of the window')
  t.same(main.problems, [])
})

t.test('acknowledging from the link in a captured webhook payload: a confirm page, then the console shows who', async (t) => {
  const second = await tcpCheck(lk, back, await closedPort())
  const alert = await waitFor(() => http.on('/pager').find((r) => r.json?.type === 'incident.opened' && r.json?.incident?.check?.id === second)?.json, 'the alert of the second check')
  t.match(alert.acknowledge_url, /\/v1\/acknowledge\//, 'the payload carries its link')
  // The link names the public URL; this server listens on a port chosen at start.
  const link = `${lk.url}${new URL(alert.acknowledge_url).pathname}`
  // Whoever opens it from the alert has no console session.
  const w = await watchedPage(browser)
  await w.page.goto(link)
  await w.page.getByRole('button', { name: 'Acknowledge' }).waitFor()
  await shot(w.page, 'acknowledge-confirm')
  const before = (await lk.req('GET', `${P(back)}/monitoring/incidents/${alert.incident.id}`)).body.incident
  t.equal(before.acknowledged, false, 'opening the link changed nothing')
  await w.page.getByRole('button', { name: 'Acknowledge' }).click()
  await w.page.waitForURL(link)
  await w.page.getByRole('heading', { name: 'Incident acknowledged' }).waitFor()
  await shot(w.page, 'acknowledge-done')
  await w.page.goto(link)
  t.match(await w.page.locator('body').innerText(), /already used/, 'a used link is refused with a page')
  t.same(w.offLoopback, [])
  await w.context.close()
  const { page } = main
  main.clear()
  await page.goto(`${lk.url}/#/overview`)
  const row = page.locator(`tr[data-incident="${alert.incident.id}"]`)
  await row.locator('.pill.ok', { hasText: 'by the link in the alert to /pager' }).waitFor()
  await row.locator('a').first().click()
  await page.locator('ol.timeline [data-type=acknowledged]', { hasText: 'Acknowledged by the link in the alert to /pager' }).waitFor()
  t.same(main.problems, [])
})

t.test('uptime over 24 h / 7 d / 30 d and an https check\'s certificate days left', async (t) => {
  const tls = await startHttps({ validDays: 10 })
  t.teardown(() => tls.close())
  const created = await lk.req('POST', `${P(front)}/monitoring`, {
    name: 'front tls', kind: 'https', configuration: { url: `${tls.url}/health`, ca: tls.cert, interval_seconds: 1, timeout_seconds: 1, cert_expiry_warn_days: 14 },
  })
  t.equal(created.status, 200, JSON.stringify(created.body))
  const { page } = main
  main.clear()
  await page.goto(`${lk.url}/#/monitoring/${front}`)
  const row = page.locator(`tr[data-check="${created.body.id}"]`)
  await row.locator('[data-state=up]').waitFor({ timeout: 30_000 })
  t.match(await row.getByTestId('cert').innerText(), /^certificate: (9|10) days left$/)
  t.ok(await row.getByTestId('cert').evaluate((e) => e.classList.contains('warn-text')), 'under the 14 days of cert_expiry_warn_days: a warning')
  // Every observation is less than a day old, so the three figures agree; a probe may have timed out on a busy machine.
  const up = /^24 h (\d+(?:\.\d+)?) % · 7 d (\d+(?:\.\d+)?) % · 30 d (\d+(?:\.\d+)?) %$/.exec(await row.getByTestId('uptime').innerText())
  t.ok(up !== null && Number(up[1]) > 0 && up[1] === up[2] && up[2] === up[3], `uptime shown: ${up?.[0]}`)
  await shot(page, 'monitoring-uptime-cert')
  await page.goto(`${lk.url}/#/monitoring/${back}`)
  t.equal(await page.locator(`tr[data-check="${downCheck}"]`).getByTestId('uptime').innerText(), '24 h 0 % · 7 d 0 % · 30 d 0 %', 'never up')
  t.same(main.problems, [])
})

t.test('no request left 127.0.0.1', async (t) => {
  offLoopback.push(...main.offLoopback)
  await main.context.close()
  t.same(offLoopback, [])
})
