// Outbound safety shared by alert destinations and assignment webhooks: the
// address classes, the policies, and real requests through the checked
// dispatcher (names resolved by an injected resolver, the check itself real).
import t from 'tap'
import { alertPolicy, classifyAddress, safeAgent, WEBHOOK_POLICY } from '../../../core/internal.ts'
import { addressProblem } from '../../../alerting/alerts/channels.ts'
import { postJson } from '../../../core/outbound/http.ts'
import { startHttpReceiver } from './receivers.ts'

const http = await startHttpReceiver()
t.teardown(() => http.close())

t.test('address classes', async (t) => {
  const cases: [string, string][] = [
    ['127.0.0.1', 'loopback'], ['127.8.9.10', 'loopback'], ['::1', 'loopback'], ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'], ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'], ['::ffff:10.0.0.1', 'private'],
    ['169.254.1.1', 'link-local'], ['fe80::1', 'link-local'],
    ['169.254.169.254', 'metadata'], ['100.100.100.200', 'metadata'], ['168.63.129.16', 'metadata'], ['fd00:ec2::254', 'metadata'], ['::ffff:169.254.169.254', 'metadata'],
    ['0.0.0.0', 'unspecified'], ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'], ['ff02::1', 'multicast'],
    ['192.0.2.1', 'reserved'], ['255.255.255.255', 'reserved'], ['64:ff9b::808:808', 'reserved'], ['2001:db8::1', 'reserved'],
    ['8.8.8.8', 'public'], ['93.184.216.34', 'public'], ['172.32.0.1', 'public'], ['2606:4700::1111', 'public'], ['[2606:4700::1111]', 'public'],
  ]
  for (const [ip, cls] of cases) t.equal(classifyAddress(ip), cls, ip)
  t.equal(classifyAddress('example.com'), null)
  const strict = alertPolicy(false)
  const relaxed = alertPolicy(true)
  t.ok(strict.allowed.has('public') && !strict.allowed.has('loopback') && !strict.allowed.has('private'))
  t.ok(relaxed.allowed.has('loopback') && relaxed.allowed.has('private'))
  for (const p of [strict, relaxed, WEBHOOK_POLICY]) {
    for (const c of ['link-local', 'metadata', 'unspecified', 'multicast', 'reserved'] as const) t.notOk(p.allowed.has(c), `${p.name} refuses ${c}`)
  }
  t.notOk(WEBHOOK_POLICY.allowed.has('public'), 'webhooks never go public')
})

t.test('channel addresses', async (t) => {
  t.equal(addressProblem('email', 'a@b.example', false), null)
  t.match(addressProblem('email', 'a@@b', false), /email/)
  t.equal(addressProblem('sms', '+442071838750', false), null)
  t.match(addressProblem('sms', '+0123', false), /E\.164/)
  t.equal(addressProblem('slack', 'https://hooks.slack.com/services/T0/B0/x', false), null)
  t.match(addressProblem('slack', 'http://hooks.slack.com/services/T0/B0/x', false), /slack incoming-webhook/)
  t.match(addressProblem('slack', 'https://evil.example/services/x', false), /slack incoming-webhook/)
  t.equal(addressProblem('discord', 'https://discord.com/api/webhooks/1/abc', false), null)
  t.match(addressProblem('discord', 'https://discord.com/other', false), /discord/)
  t.equal(addressProblem('slack', 'http://127.0.0.1:9/relay', true), null, 'a self-hosted relay when private destinations are allowed')
  t.match(addressProblem('webhook', 'http://127.0.0.1/x', false), /loopback/)
  t.match(addressProblem('webhook', 'http://[::ffff:169.254.169.254]/', true), /metadata/)
  t.equal(addressProblem('webhook', 'https://hooks.example.com/x', false), null, 'names are judged when connecting')
})

t.test('requests through the checked dispatcher', async (t) => {
  const at = (host: string, path: string) => `http://${host}:${http.port}${path}`
  let calls = 0
  const answers: string[][] = [['127.0.0.1'], ['127.0.0.1'], ['127.0.0.1', '93.184.216.34'], ['93.184.216.34']]
  const agent = safeAgent(WEBHOOK_POLICY, {
    resolver: async () => (answers[calls++] ?? ['127.0.0.1']).map((address) => ({ address, family: 4 })),
  })
  t.teardown(() => agent.close())
  const ok = await postJson(agent, at('receiver.test', '/a'), '{}', {}, { policy: WEBHOOK_POLICY })
  t.match(ok, { outcome: 'delivered', status: 200 })
  const again = await postJson(agent, at('receiver.test', '/a'), '{}', {}, { policy: WEBHOOK_POLICY })
  t.equal(again.outcome, 'delivered')
  t.equal(calls, 2, 'every attempt resolves and checks the name again (no pooled connection)')
  const mixed = await postJson(agent, at('receiver.test', '/mixed'), '{}', {}, { policy: WEBHOOK_POLICY })
  t.match(mixed, { outcome: 'failed', status: null, error: /refused: receiver\.test resolves to 93\.184\.216\.34, a public address/ })
  const rebound = await postJson(agent, at('receiver.test', '/public'), '{}', {}, { policy: WEBHOOK_POLICY })
  t.match(rebound, { outcome: 'failed', error: /public address/ }, 'a name that now resolves publicly is refused')
  t.equal(http.on('/mixed').length + http.on('/public').length, 0, 'nothing reached the receiver')

  const literal = await postJson(agent, 'http://93.184.216.34/x', '{}', {}, { policy: WEBHOOK_POLICY })
  t.match(literal, { outcome: 'failed', error: /refused: 93\.184\.216\.34 is a public address/ })
  const meta = await postJson(agent, 'http://[::ffff:a9fe:a9fe]/latest', '{}', {}, { policy: alertPolicy(true) })
  t.match(meta, { outcome: 'failed', error: /metadata/ })

  const strict = safeAgent(alertPolicy(false))
  t.teardown(() => strict.close())
  const local = await postJson(strict, at('localhost', '/strict'), '{}', {}, { policy: alertPolicy(false) })
  t.match(local, { outcome: 'failed', error: /loopback address: alert destinations may not connect/ })
  t.equal(http.on('/strict').length, 0)

  http.script('/redirect', [{ status: 307, headers: { location: `${http.url}/target` } }])
  const redirect = await postJson(agent, at('receiver.test', '/redirect'), '{}', {}, { policy: WEBHOOK_POLICY })
  t.match(redirect, { outcome: 'failed', status: 307, error: /redirects are not followed/ })
  t.equal(http.on('/target').length, 0, 'the redirect target was never asked')

  http.script('/busy', [{ status: 429, headers: { 'retry-after': '7' } }])
  t.match(await postJson(agent, at('receiver.test', '/busy'), '{}', {}, { policy: WEBHOOK_POLICY }), { outcome: 'retry', status: 429, retryAfterMs: 7000 })
  for (const [status, outcome] of [[408, 'retry'], [425, 'retry'], [500, 'retry'], [503, 'retry'], [400, 'failed'], [401, 'failed'], [410, 'failed'], [204, 'delivered']] as const) {
    http.script(`/s${status}`, [status])
    t.equal((await postJson(agent, at('receiver.test', `/s${status}`), '{}', {}, { policy: WEBHOOK_POLICY })).outcome, outcome, `HTTP ${status}`)
  }
  const refused = await postJson(agent, 'http://127.0.0.1:1/', '{}', {}, { policy: WEBHOOK_POLICY })
  t.match(refused, { outcome: 'retry', error: 'connection refused' })

  // The socket timeout (10 s in service; short here): a receiver that never answers is a retryable failure.
  const impatient = safeAgent(WEBHOOK_POLICY, { timeoutMs: 300, resolver: async () => [{ address: '127.0.0.1', family: 4 }] })
  t.teardown(() => impatient.close())
  http.handle('/hang', () => new Promise(() => undefined))
  const hung = await postJson(impatient, at('receiver.test', '/hang'), '{}', {}, { policy: WEBHOOK_POLICY })
  t.match(hung, { outcome: 'retry', status: null, error: 'no response within the socket timeout' })
})
