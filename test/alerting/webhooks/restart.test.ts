// At least once across a crash: the assignment change and its delivery row
// commit together while no delivery worker runs (the process "dies" before
// delivering); the next start delivers it. The receiver deduplicates durably
// (PgReceiptStore on its own PGlite), so a redelivery after its own restart is
// recognised.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes, randomUUID } from 'node:crypto'
import { openPglite, type Database } from '../../../core/index.ts'
import { PgReceiptStore, WebhookReceiver } from '../../../desktop/internal.ts'
import { PGLITE_TEMPLATES, startTestLookout } from '../../helpers/lookout.ts'
import { startHttpReceiver, waitFor, type Received } from '../alerts/receivers.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'lookout-webhook-restart-'))
const receiverDir = mkdtempSync(join(tmpdir(), 'lookout-receiver-'))
const env = { LOOKOUT_SECRET_KEY: randomBytes(32).toString('hex') }
const http = await startHttpReceiver()
let receiverDb: Database = await openPglite(receiverDir, { templateDir: PGLITE_TEMPLATES })
t.teardown(async () => {
  await http.close()
  await receiverDb.close()
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(receiverDir, { recursive: true, force: true })
})

async function receiverFor(secret: string): Promise<WebhookReceiver> {
  const store = new PgReceiptStore(receiverDb)
  await store.init()
  return new WebhookReceiver({ secrets: [secret], store })
}

t.test('a change committed before a crash is delivered after the restart', async (t) => {
  // First life: the api role only, so nothing delivers.
  const first = await startTestLookout({ roles: ['api'], dataDir, env })
  const created = await first.ownerReq('POST', '/v1/webhooks', { url: `${http.url}/agent` })
  t.equal(created.status, 201)
  const secret = created.body.secret as string
  await first.ownerReq('PATCH', `/v1/webhooks/${created.body.id}`, { generation: 1, enabled: true })
  const sealed = await first.lookout.db.query<{ secret_key_id: string | null; secret: Uint8Array }>('SELECT secret_key_id, secret FROM webhook_subscriptions WHERE id = $1', [created.body.id])
  t.ok(sealed.rows[0]?.secret_key_id !== null, 'the secret is sealed with LOOKOUT_SECRET_KEY')
  t.notOk(Buffer.from(sealed.rows[0]?.secret as Uint8Array).toString('latin1').includes(secret.slice(6)), 'not stored in clear')
  const task = await first.req('POST', `/v1/workspaces/${first.workspaceId}/tasks`, { idempotency_key: randomUUID(), title: 'survives', assignee: 21 })
  t.equal(task.status, 201)
  const queued = await first.ownerReq('GET', `/v1/webhooks/${created.body.id}/deliveries`)
  t.match(queued.body.items, [{ state: 'queued', event_type: 'task.assignment.changed', attempts: 0 }])
  await first.stop()
  t.equal(http.on('/agent').length, 0, 'nothing was sent before the crash')

  let receiver = await receiverFor(secret)
  const outcomes: string[] = []
  http.handle('/agent', async (r: Received) => {
    const res = await receiver.receive(r.headers, r.raw)
    outcomes.push(res.duplicate === true ? 'duplicate' : res.reason)
    return res.status
  })
  // Second life: every role, so the monitor role's worker delivers what is queued.
  const second = await startTestLookout({ dataDir, env, deliveries: { onToast: () => undefined } })
  t.teardown(() => second.stop())
  const got = await waitFor(() => http.on('/agent')[0], 'the delivery after the restart')
  t.same(outcomes, ['accepted'])
  t.match(JSON.parse(got.raw), { type: 'task.assignment.changed', task: { id: task.body.id }, assignee: { id: 'profile:21' } })
  const delivered = await waitFor(async () => {
    const r = await second.ownerReq('GET', `/v1/webhooks/${created.body.id}/deliveries`)
    return r.body.items[0]?.state === 'delivered' ? r.body.items[0] : undefined
  }, 'delivered state')
  t.equal(delivered.event_id, got.headers['x-service-event-id'])

  // The receiver restarts too; the same delivery arriving again is a known duplicate.
  await receiverDb.close()
  receiverDb = await openPglite(receiverDir, { templateDir: PGLITE_TEMPLATES })
  const restarted = await receiverFor(secret)
  receiver = restarted
  const again = await restarted.receive(got.headers, got.raw)
  t.match(again, { status: 200, duplicate: true })
  const altered = got.raw.replace('profile:21', 'profile:22')
  t.equal((await restarted.receive(got.headers, altered)).status, 401, 'a changed body breaks the signature')

  // The runtime's worker also sends test events straight away.
  const test = await second.ownerReq('POST', `/v1/webhooks/${created.body.id}/test`)
  t.equal(test.status, 202)
  await waitFor(() => outcomes.length >= 2, 'the test event')
  t.same(outcomes, ['accepted', 'accepted'])
  t.equal(JSON.parse((http.on('/agent')[1] as Received).raw).type, 'webhook.test')
})
