// Acknowledge links in real alert messages: a webhook payload, a Slack and a
// Discord message (local HTTP receiver) and an email (local SMTP server) each
// carry their own link. GET shows a confirm page and changes nothing; POST
// acknowledges as the routed person, once; forged, reused and expired links
// get a human page.
import t from 'tap'
import { tcpCheck, verifiedDestination, verifiedWebhook, startOnCallLookout } from '../../helpers/on-call.ts'
import { acceptingOn, closedPort, startHttpReceiver, startSmtpReceiver, waitFor } from './receivers.ts'

const http = await startHttpReceiver()
const smtp = await startSmtpReceiver()
const lk = await startOnCallLookout({ LOOKOUT_SMTP_URL: smtp.url, LOOKOUT_PUBLIC_URL: 'https://lookout.example.test' })
t.teardown(async () => {
  await lk.stop()
  await http.close()
  await smtp.close()
})
const rid = await lk.resource('acked-service')
const W = `/v1/workspaces/${lk.workspaceId}/resources/${rid}`
const codeIn = (text: string | undefined) => (text === undefined ? undefined : /code(?: is)? (\d{6})/.exec(text)?.[1])
/** The mail text with quoted-printable soft breaks undone. */
const mailText = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')
const ACK_RE = /https:\/\/lookout\.example\.test(\/v1\/acknowledge\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/

const hook = await verifiedWebhook(lk, rid, http, '/ack-hook')
const chat = (channel: string, path: string, field: string) => verifiedDestination(lk, rid, { channel, address: `${http.url}${path}`, label: channel },
  (since) => waitFor(() => codeIn(http.on(path).slice(since).map((r) => r.json?.[field] as string).find((x) => codeIn(x) !== undefined)), `${channel} code`),
  () => http.on(path).length)
await chat('slack', '/ack-slack', 'text')
await chat('discord', '/ack-discord', 'content')
await verifiedDestination(lk, rid, { channel: 'email', address: 'oncall@example.test', label: 'mail' },
  (since) => waitFor(() => codeIn(smtp.mails.slice(since).map((m) => mailText(m.raw)).find((x) => codeIn(x) !== undefined)), 'mail code'),
  () => smtp.mails.length)

const port = await closedPort()
await tcpCheck(lk, rid, port)
const opened = await waitFor(() => http.on('/ack-hook').find((r) => r.json?.type === 'incident.opened')?.json, 'the webhook alert')
const incidentId = opened.incident.id as string
const pathOf = (text: string | undefined) => (text === undefined ? undefined : ACK_RE.exec(text)?.[1])
const links = {
  webhook: pathOf(opened.acknowledge_url) as string,
  slack: await waitFor(() => pathOf(http.on('/ack-slack').find((r) => String(r.json?.text).includes('DOWN'))?.json.text), 'the Slack alert'),
  discord: await waitFor(() => pathOf(http.on('/ack-discord').find((r) => String(r.json?.content).includes('DOWN'))?.json.content), 'the Discord alert'),
  email: await waitFor(() => pathOf(smtp.mails.map((m) => mailText(m.raw)).find((x) => x.includes('DOWN'))), 'the alert mail'),
}
const get = async (path: string) => {
  const r = await fetch(lk.url + path)
  return { status: r.status, headers: r.headers, text: await r.text() }
}
// What a browser sends for the confirm page's form: an empty urlencoded body.
const confirm = async (path: string) => {
  const r = await fetch(lk.url + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })
  return { status: r.status, text: await r.text() }
}
const incident = async () => (await lk.req('GET', `${W}/monitoring/incidents/${incidentId}`)).body.incident

t.test('every channel\'s message carries its own link', async (t) => {
  t.equal(new Set(Object.values(links)).size, 4, JSON.stringify(links))
  for (const [channel, path] of Object.entries(links)) t.match(path, /^\/v1\/acknowledge\//, channel)
  // The link is the second line of the text: a chat message cut at its limit keeps it.
  const slack = http.on('/ack-slack').find((r) => String(r.json?.text).includes('DOWN'))?.json.text as string
  t.match(slack.split('\n')[2], /^Acknowledge \(stops reminders and escalation\): https:/)
})

t.test('GET shows a confirm page and changes nothing', async (t) => {
  const page = await get(links.slack)
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /^text\/html/)
  t.match(page.headers.get('content-security-policy'), /default-src 'none'/)
  t.notMatch(page.text, /<script|style=/i, 'no script, no inline style')
  t.match(page.text, /Acknowledge the incident on acked-service\?/)
  t.match(page.text, /You acknowledge as <strong>staff:1<\/strong>/, 'a personal destination acknowledges as its owner')
  t.match(page.text, new RegExp(`<form method="post" action="${links.slack.replace(/\./g, '\\.')}">`))
  await get(links.slack)
  t.equal((await incident()).acknowledged, false, 'opening the link twice acknowledged nothing')
})

t.test('a forged link is refused with a page', async (t) => {
  const forged = links.email.slice(0, -2) + (links.email.endsWith('AA') ? 'BB' : 'AA')
  for (const r of [await get(forged), await confirm(forged)]) {
    t.equal(r.status, 404)
    t.match(r.text, /This link is not valid/)
  }
  const otherId = `/v1/acknowledge/${'x'.repeat(24)}.${links.email.split('.')[1]}`
  t.equal((await confirm(otherId)).status, 404, 'a signature of another link')
  t.equal((await incident()).acknowledged, false)
})

t.test('POST acknowledges as the routed person, once', async (t) => {
  const done = await confirm(links.webhook)
  t.equal(done.status, 200, done.text)
  t.match(done.text, new RegExp(`Incident acknowledged.*Acknowledged by destination:${hook}`, 's'), 'a shared destination acknowledges as itself')
  const i = await incident()
  t.match(i, { acknowledged: true, acknowledged_by: `destination:${hook}` })
  const again = await confirm(links.webhook)
  t.equal(again.status, 410)
  t.match(again.text, /This link was already used/)
  t.equal((await get(links.webhook)).status, 410)
  // Another person's link still opens, and says who acknowledged first.
  t.match((await get(links.email)).text, new RegExp(`already acknowledged \\(by destination:${hook}\\)`))
})

t.test('links expire with the incident', async (t) => {
  t.teardown(await acceptingOn(port))
  const closed = await waitFor(() => http.on('/ack-hook').find((r) => r.json?.type === 'incident.closed')?.json, 'the recovery')
  t.equal(closed.acknowledge_url, undefined, 'a recovery carries no link')
  for (const r of [await get(links.email), await confirm(links.discord)]) {
    t.equal(r.status, 410)
    t.match(r.text, /This link has expired/)
  }
})
