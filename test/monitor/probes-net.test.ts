// HTTPS/HTTP, TCP and ICMP probes against real servers started here.
import t from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HttpsRunner, IcmpRunner, TcpRunner, PROBE_REASONS, parseConfig, type ProbeContext } from '../../monitor/internal.ts'
import { freePort, startHttp, startHttps, startTcp } from '../helpers/servers.ts'
import { probeTarget } from '../helpers/probe-target.ts'

const secretsDir = mkdtempSync(join(tmpdir(), 'lookout-secrets-'))
t.teardown(() => rmSync(secretsDir, { recursive: true, force: true }))
const ctx = (env: Record<string, string> = {}): ProbeContext => ({ credentials: { fileDirs: [secretsDir], env }, now: Date.now() })
const https = new HttpsRunner()
const tcp = new TcpRunner()

const good = await startHttps()
const expired = await startHttps({ expired: true })
const soon = await startHttps({ validDays: 5 })
const TOKEN = 'tok-' + Math.random().toString(36).slice(2)
const web = await startHttp((req, res) => {
  const path = req.url ?? '/'
  if (path === '/status/503') return void res.writeHead(503).end('down for maintenance')
  if (path === '/redirect') return void res.writeHead(302, { location: '/landing' }).end()
  if (path === '/landing') return void res.writeHead(200).end('landed safely')
  if (path === '/hang') return // never answers
  if (path === '/auth') return void res.writeHead(req.headers['x-probe-token'] === TOKEN ? 200 : 401).end()
  if (path === '/echo') return void res.writeHead(200).end(`${req.method} ${String(req.headers['x-extra'])}`)
  res.writeHead(200).end('service version 4.2 is healthy')
})
t.teardown(async () => {
  await Promise.all([good.close(), expired.close(), soon.close(), web.close()])
})

t.test('https: a trusted self-signed certificate is up and its expiry is reported', async (t) => {
  const o = await https.run(probeTarget('https', { url: good.url, ca: good.cert }), ctx())
  t.equal(o.status, 'up', o.reason)
  t.equal(o.code, PROBE_REASONS.ok)
  t.ok((o.latencyMs ?? -1) >= 0)
  t.equal(o.details?.status_code, 200)
  t.match(o.details?.cert_expires_at, /^\d{4}-\d\d-\d\dT/)
  t.ok((o.details?.cert_days_left as number) >= 363 && (o.details?.cert_days_left as number) <= 365)
  t.equal(o.details?.cert_warning, undefined, 'no warning a year ahead')
})

t.test('https: an untrusted certificate is down with a TLS reason', async (t) => {
  const o = await https.run(probeTarget('https', { url: good.url }), ctx())
  t.equal(o.status, 'down')
  t.equal(o.code, PROBE_REASONS.tls)
  t.match(o.reason, /SELF_SIGNED/)
  t.ok(o.details?.cert_expires_at, 'the certificate is still described')
})

t.test('https: an expired certificate is down even when its issuer is trusted', async (t) => {
  const o = await https.run(probeTarget('https', { url: expired.url, ca: expired.cert }), ctx())
  t.equal(o.status, 'down')
  t.equal(o.code, PROBE_REASONS.certExpired)
  t.match(o.reason, /CERT_HAS_EXPIRED/)
  t.ok((o.details?.cert_days_left as number) < 0)
  const lax = await https.run(probeTarget('https', { url: expired.url, tls_verify: false }), ctx())
  t.equal(lax.status, 'up', 'tls_verify false only reports it')
  t.equal(lax.details?.cert_warning, 'the certificate has expired')
})

t.test('https: a certificate inside the warning window is up with a warning', async (t) => {
  const o = await https.run(probeTarget('https', { url: soon.url, ca: soon.cert, cert_expiry_warn_days: 14 }), ctx())
  t.equal(o.status, 'up')
  t.match(o.details?.cert_warning, /expires in [45] days/)
  const quiet = await https.run(probeTarget('https', { url: soon.url, ca: soon.cert, cert_expiry_warn_days: 3 }), ctx())
  t.equal(quiet.details?.cert_warning, undefined)
})

t.test('https: under cert_expiry_alert_days the check is down, with the days left', async (t) => {
  const o = await https.run(probeTarget('https', { url: soon.url, ca: soon.cert, cert_expiry_alert_days: 7 }), ctx())
  t.equal(o.status, 'down')
  t.equal(o.code, PROBE_REASONS.certExpiring)
  t.match(o.reason, /^the certificate expires in [45] days \(\d{4}-.*\), under the alert threshold of 7$/)
  t.ok([4, 5].includes(o.details?.cert_days_left as number))
  const ok = await https.run(probeTarget('https', { url: soon.url, ca: soon.cert, cert_expiry_alert_days: 4 }), ctx())
  t.equal(ok.status, (ok.details?.cert_days_left as number) < 4 ? 'down' : 'up', 'at or above the threshold: up')
  t.equal((await https.run(probeTarget('https', { url: good.url, ca: good.cert, cert_expiry_alert_days: 30 }), ctx())).status, 'up')
  t.notOk(parseConfig('https', { url: soon.url, cert_expiry_alert_days: 0 }).ok, '0 days is refused (1..3650)')
  t.notOk(parseConfig('https', { url: soon.url, cert_expiry_alert_days: 3651 }).ok)
})

t.test('http: status range, body text and pattern', async (t) => {
  t.equal((await https.run(probeTarget('https', { url: web.url + '/' }), ctx())).status, 'up')
  const bad = await https.run(probeTarget('https', { url: web.url + '/status/503' }), ctx())
  t.equal(bad.status, 'down')
  t.equal(bad.code, PROBE_REASONS.status)
  t.match(bad.reason, /HTTP 503, expected 200-399/)
  const wide = await https.run(probeTarget('https', { url: web.url + '/status/503', status_min: 200, status_max: 503 }), ctx())
  t.equal(wide.status, 'up', 'the expected range is configurable')
  t.equal((await https.run(probeTarget('https', { url: web.url, body_contains: 'is healthy' }), ctx())).status, 'up')
  const missing = await https.run(probeTarget('https', { url: web.url, body_contains: 'is sick' }), ctx())
  t.equal(missing.code, PROBE_REASONS.body)
  t.equal((await https.run(probeTarget('https', { url: web.url, body_regex: 'version \\d+\\.\\d+' }), ctx())).status, 'up')
  t.equal((await https.run(probeTarget('https', { url: web.url, body_regex: '^down' }), ctx())).status, 'down')
})

t.test('http: method and headers are sent', async (t) => {
  const o = await https.run(probeTarget('https', { url: web.url + '/echo', method: 'POST', headers: { 'x-extra': 'yes' }, body: 'x', body_contains: 'POST yes' }), ctx())
  t.equal(o.status, 'up', o.reason)
})

t.test('http: redirects are refused or followed as configured', async (t) => {
  const strict = await https.run(probeTarget('https', { url: web.url + '/redirect', status_max: 299 }), ctx())
  t.equal(strict.status, 'down')
  t.match(strict.reason, /HTTP 302/)
  const follow = await https.run(probeTarget('https', { url: web.url + '/redirect', status_max: 299, follow_redirects: true, body_contains: 'landed' }), ctx())
  t.equal(follow.status, 'up', follow.reason)
})

t.test('http: a secret header comes from a credential reference and never shows', async (t) => {
  const cfg = { url: web.url + '/auth', status_max: 299, credential_header: 'x-probe-token' }
  const ok = await https.run(probeTarget('https', cfg, { env: 'LOOKOUT_SECRET_WEB' }), ctx({ LOOKOUT_SECRET_WEB: TOKEN }))
  t.equal(ok.status, 'up', ok.reason)
  t.notMatch(JSON.stringify(ok), TOKEN)
  const wrong = await https.run(probeTarget('https', cfg, { env: 'LOOKOUT_SECRET_WEB' }), ctx({ LOOKOUT_SECRET_WEB: 'nope' }))
  t.equal(wrong.status, 'down')
  const unset = await https.run(probeTarget('https', cfg, { env: 'LOOKOUT_SECRET_WEB' }), ctx())
  t.equal(unset.status, 'unknown', 'an unreadable credential is not evidence against the target')
  t.equal(unset.code, PROBE_REASONS.credential)
  t.match(unset.reason, /LOOKOUT_SECRET_WEB is not set/)
  const file = join(secretsDir, 'web-token')
  writeFileSync(file, TOKEN + '\n')
  t.equal((await https.run(probeTarget('https', cfg, { file }), ctx())).status, 'up', 'a file reference inside the secrets directory')
  const outside = await https.run(probeTarget('https', cfg, { file: '/etc/hostname' }), ctx())
  t.equal(outside.status, 'unknown')
  t.match(outside.reason, /outside the allowed secrets directories/)
})

t.test('http: timeouts and refused connections are down with their reason', async (t) => {
  const slow = await https.run(probeTarget('https', { url: web.url + '/hang', timeout_seconds: 0.3 }), ctx())
  t.equal(slow.status, 'down')
  t.equal(slow.code, PROBE_REASONS.timeout)
  const port = await freePort()
  const refused = await https.run(probeTarget('https', { url: `http://127.0.0.1:${port}/` }), ctx())
  t.equal(refused.status, 'down')
  t.equal(refused.code, PROBE_REASONS.refused)
  const dns = await https.run(probeTarget('https', { url: 'http://no-such-host.invalid/' }), ctx())
  t.equal(dns.status, 'down')
  t.equal(dns.code, PROBE_REASONS.dns)
})

t.test('tcp: connect, banner, send/expect, refused', async (t) => {
  const banner = await startTcp({ banner: 'SSH-2.0-OpenSSH_9.2\r\n' })
  const echo = await startTcp({ reply: (s) => (s.startsWith('PING') ? '+PONG\r\n' : '-ERR\r\n') })
  t.teardown(async () => {
    await banner.close()
    await echo.close()
  })
  const plain = await tcp.run(probeTarget('tcp', { host: '127.0.0.1', port: banner.port }))
  t.equal(plain.status, 'up')
  t.ok((plain.details?.connect_ms as number) >= 0)
  t.equal((await tcp.run(probeTarget('tcp', { host: '127.0.0.1', port: banner.port, expect: 'SSH-2.0' }))).status, 'up')
  // The probe waits its whole timeout for the expected text; 3 s lets a loaded machine read the banner first.
  const wrong = await tcp.run(probeTarget('tcp', { host: '127.0.0.1', port: banner.port, expect: 'SMTP', timeout_seconds: 3 }))
  t.equal(wrong.status, 'down')
  t.equal(wrong.code, PROBE_REASONS.banner)
  t.match(wrong.reason, /SSH-2.0/)
  t.equal((await tcp.run(probeTarget('tcp', { host: '127.0.0.1', port: echo.port, send: 'PING\r\n', expect: '+PONG' }))).status, 'up')
  await banner.close()
  const refused = await tcp.run(probeTarget('tcp', { host: '127.0.0.1', port: banner.port }))
  t.equal(refused.status, 'down')
  t.equal(refused.code, PROBE_REASONS.refused)
})

t.test('icmp: ping 127.0.0.1 reports loss and round trip', async (t) => {
  const icmp = new IcmpRunner()
  const o = await icmp.run(probeTarget('icmp', { host: '127.0.0.1', count: 2, timeout_seconds: 3 }))
  t.equal(o.status, 'up', o.reason)
  t.equal(o.details?.sent, 2)
  t.equal(o.details?.received, 2)
  t.equal(o.details?.loss_percent, 0)
  t.ok((o.details?.rtt_avg_ms as number) >= 0)
  const dns = await icmp.run(probeTarget('icmp', { host: 'no-such-host.invalid', count: 1, timeout_seconds: 2 }))
  t.equal(dns.status, 'down')
  t.equal(dns.code, PROBE_REASONS.dns)
})

t.test('icmp: without a usable ping the state is unknown, never down', async (t) => {
  const icmp = new IcmpRunner({ pingPath: '/nonexistent/ping' })
  const o = await icmp.run(probeTarget('icmp', { host: '127.0.0.1', count: 1 }))
  t.equal(o.status, 'unknown')
  t.equal(o.code, PROBE_REASONS.icmpUnavailable)
  t.match(o.reason, /ICMP unavailable/)
  // A ping that exists but may not open a raw socket says so on stderr and exits 2.
  const dir = mkdtempSync(join(tmpdir(), 'lookout-ping-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const fake = join(dir, 'ping')
  writeFileSync(fake, '#!/bin/sh\necho "ping: socket: Operation not permitted" >&2\nexit 2\n', { mode: 0o755 })
  const denied = await new IcmpRunner({ pingPath: fake }).run(probeTarget('icmp', { host: '127.0.0.1', count: 1 }))
  t.equal(denied.status, 'unknown')
  t.equal(denied.code, PROBE_REASONS.icmpUnavailable)
  t.match(denied.reason, /Operation not permitted/)
})
