// The webhook signature, pinned independently of the project's signing code:
// the spec's formula (X-Service-Signature = "sha256=" + lowercase hex
// HMAC-SHA256 of "<timestamp>.<raw body>", keyed with the signing secret)
// computed here with node:crypto, a fixed vector whose header string is
// written literally (computed once with `openssl dgst -sha256 -hmac`), and a
// real delivery checked as a receiver written from the spec would check it.
import t from 'tap'
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import { WebhookWorker, signature as webhookSignature } from '../../../alerting/internal.ts'
import { startTestLookout } from '../../helpers/lookout.ts'
import { startHttpReceiver, type Received } from '../alerts/receivers.ts'

/** The spec's formula, written from the spec. */
function expected(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')}`
}

/** What a receiver does: recompute over the raw bytes, compare in constant time, check the clock. */
function receiverAccepts(secret: string, headers: Record<string, unknown>, rawBody: Buffer, nowMs: number): string | null {
  const timestamp = headers['x-service-timestamp']
  const sig = headers['x-service-signature']
  if (typeof timestamp !== 'string' || typeof sig !== 'string') return 'missing headers'
  if (!/^\d+$/.test(timestamp)) return 'bad timestamp'
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > 300) return 'timestamp more than five minutes off'
  const want = Buffer.from(expected(secret, timestamp, rawBody))
  const got = Buffer.from(sig)
  if (want.length !== got.length || !timingSafeEqual(want, got)) return 'bad signature'
  const event = JSON.parse(rawBody.toString('utf8')) as { id?: string }
  if (headers['x-service-event-id'] !== event.id) return 'event id header differs from the body'
  return null
}

// pinned-date: a published test vector; the signature is a pure function of its inputs
const VECTOR = {
  secret: 'whsec_fixed-vector-secret',
  timestamp: '1700000000',
  body: '{"schema_version":1,"id":"9b2f6c1e-8d4a-4b7e-9f10-3c5d2e1a7b64","type":"webhook.test","occurred_at":"2023-11-14T22:13:20.000Z","source":{"instance_id":"4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f","workspace_id":"11111111-2222-4333-8444-555555555555"}}',
  header: 'sha256=52f61aa31098c86195dd9048c70437a57dbd16e578bc0999f60a210db15b711f',
}

t.test('a fixed vector: known secret, timestamp and body give the known header', async (t) => {
  t.equal(expected(VECTOR.secret, VECTOR.timestamp, VECTOR.body), VECTOR.header, 'the formula written here gives the literal header')
  t.equal(webhookSignature(VECTOR.secret, VECTOR.timestamp, VECTOR.body), VECTOR.header, 'the project\'s signing function gives the same string')
  t.equal(webhookSignature(VECTOR.secret, Number(VECTOR.timestamp), Buffer.from(VECTOR.body)), VECTOR.header, 'with a number and a Buffer too')
  t.match(VECTOR.header, /^sha256=[0-9a-f]{64}$/, 'lowercase hex')
  // Controls: each input matters, so the check can fail.
  t.not(webhookSignature(VECTOR.secret, String(Number(VECTOR.timestamp) + 1), VECTOR.body), VECTOR.header, 'another timestamp')
  t.not(webhookSignature('whsec_other', VECTOR.timestamp, VECTOR.body), VECTOR.header, 'another secret')
  t.not(webhookSignature(VECTOR.secret, VECTOR.timestamp, `${VECTOR.body} `), VECTOR.header, 'one byte more of body')
  t.not(createHmac('sha256', VECTOR.secret).update(VECTOR.timestamp + VECTOR.body).digest('hex'), VECTOR.header.slice(7), 'the dot is part of the message')
})

t.test('a real delivery verifies as a receiver written from the spec checks it', async (t) => {
  const lk = await startTestLookout({ roles: ['api'] })
  const http = await startHttpReceiver()
  const worker = new WebhookWorker(lk.lookout.db, { workerId: 'signature-test' })
  t.teardown(async () => {
    await worker.close()
    await lk.stop()
    await http.close()
  })
  const created = await lk.ownerReq('POST', '/v1/webhooks', { url: `${http.url}/signed` })
  t.equal(created.status, 201)
  const secret = created.body.secret as string
  const enabled = await lk.ownerReq('PATCH', `/v1/webhooks/${created.body.id}`, { generation: created.body.generation, enabled: true })
  t.equal(enabled.status, 200)
  const task = await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/tasks`, { idempotency_key: randomUUID(), title: 'signed', assignee: 5 })
  t.equal(task.status, 201)
  t.equal((await lk.ownerReq('POST', `/v1/webhooks/${created.body.id}/test`)).status, 202)
  for (let i = 0; i < 50 && http.on('/signed').length < 2; i++) {
    await worker.step()
    if (http.on('/signed').length < 2) await new Promise((r) => setTimeout(r, 100))
  }
  const got: Received[] = http.on('/signed')
  t.equal(got.length, 2, 'the assignment event and the test event arrived')
  for (const r of got) {
    const raw = Buffer.from(r.raw, 'utf8')
    t.equal(r.headers['content-type'], 'application/json')
    t.equal(receiverAccepts(secret, r.headers, raw, Date.now()), null, `${r.json?.type}: accepted by the independent check`)
    t.equal(r.headers['x-service-signature'], expected(secret, r.headers['x-service-timestamp'] as string, raw), 'the header is the formula\'s value')
    // Controls: the same check refuses a changed body, another secret and an old delivery.
    t.equal(receiverAccepts(secret, r.headers, Buffer.concat([raw, Buffer.from(' ')]), Date.now()), 'bad signature')
    t.equal(receiverAccepts('whsec_wrong', r.headers, raw, Date.now()), 'bad signature')
    t.equal(receiverAccepts(secret, r.headers, raw, Date.now() + 301_000), 'timestamp more than five minutes off')
  }
  t.same(got.map((r) => r.json.type).sort(), ['task.assignment.changed', 'webhook.test'])
})
