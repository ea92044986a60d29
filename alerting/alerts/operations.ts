// The AlertChange operations. Each runs in one transaction with its
// operation_id row: the first request does the change, a replay with the same
// content gets the stored status and body, the same id with other content is
// a 409. A refused change (thrown error) rolls back and leaves no id behind;
// a wrong verification code is an answered request (422) whose counted
// attempt is committed with it.
import { createHash, randomInt, randomUUID, timingSafeEqual } from 'node:crypto'
import type { ValidateFunction } from 'ajv'
import { changeSubscription, DEFAULT_CHANNELS } from '../../monitor/index.ts'
import { createAjv } from '../../core/index.ts'
import type { Database, Sql } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail, toDetails, type DetailItem } from '../../core/index.ts'
import { AlertAlreadyVerifiedError, AlertChannelUnavailableError, AlertCodeExpiredError, AlertCodeLockedError, AlertIncidentClosedError, AlertLocalOnlyError, AlertNotVerifiedError, AlertOperationConflictError, AlertStaleRevisionError, AlertVerificationLimitedError } from '../errors.ts'
import { ConflictError, NotFoundError } from '../../core/index.ts'
import { contentHash } from '../../workspace/index.ts'
import { addressProblem, CHANNELS, localProblem, type Channel } from './channels.ts'
import { cancelQueued, queueDelivery } from './deliveries.ts'
import { CODE_ATTEMPTS, destinationView, lockDestination, type DestinationRow } from './destinations.ts'
import { ALERT_EVENT_TYPES, testMessage, verificationMessage, type ResourceInfo } from './messages.ts'
import { readPolicy } from './routing.ts'
import { retimeIncidents } from './timers.ts'
import { acknowledgeIncident } from './acknowledge.ts'
import { POLICY_CONFIGURATION, policyOf, type AlertValues, type Operation, type PolicyConfiguration } from './schemas.ts'
import type { AlertSettings } from './settings.ts'

export interface OperationCtx {
  tx: Sql
  ws: string
  rid: string
  resource: ResourceInfo
  /** The subscriber acting: staff:<id> or token:<id>. */
  actor: string
  now: number
  settings: AlertSettings
}

export interface Outcome {
  status: number
  body: unknown
}

export const CODE_TTL_MS = 15 * 60_000
export const CODES_PER_HOUR = 5
const HOUR = 3_600_000

const loc = (...path: (string | number)[]) => ['body', 'values', ...path]
const missing = (field: string) => detail(loc(field), `Field required for this operation`, 'missing')
const ts = (n: number) => new Date(n).toISOString()

function need<K extends keyof AlertValues>(v: AlertValues, ...fields: K[]): void {
  const absent = fields.filter((f) => v[f] === undefined || v[f] === null)
  if (absent.length > 0) throw new RequestInvalid(absent.map((f) => missing(String(f))))
}

async function destination(ctx: OperationCtx, id: string): Promise<DestinationRow> {
  const d = await lockDestination(ctx.tx, ctx.ws, id.toLowerCase(), ctx.actor)
  if (d === undefined) throw new NotFoundError('alert destination')
  return d
}

function checkRevision(current: number, given: number | null | undefined, what: string): void {
  if ((given ?? 0) !== current) throw new AlertStaleRevisionError(`${what} is at revision ${current}`)
}

function channelAvailable(settings: AlertSettings, channel: Channel): void {
  if (channel === 'email' && settings.smtpUrl === undefined) throw new AlertChannelUnavailableError('email')
  if (channel === 'sms' && settings.smsUrl === undefined) throw new AlertChannelUnavailableError('sms')
}

const codeHash = (id: string, code: string) => createHash('sha256').update(`${id}:${code}`).digest()

// --- destinations ---

async function saveDestination(ctx: OperationCtx, v: AlertValues): Promise<Outcome> {
  const id = v.id?.toLowerCase() ?? randomUUID()
  const found = await ctx.tx.query<DestinationRow>('SELECT * FROM alert_destinations WHERE id = $1 FOR UPDATE', [id])
  const existing = found.rows[0]
  if (existing !== undefined && existing.workspace_id !== ctx.ws) throw new ConflictError(`the id ${id} is taken`)
  if (existing !== undefined && (existing.removed_at !== null || !(existing.shared || existing.owner === ctx.actor))) throw new NotFoundError('alert destination')
  if (existing === undefined && (v.revision ?? 0) !== 0) throw new NotFoundError('alert destination')
  const channel = v.channel ?? existing?.channel
  const address = v.address ?? existing?.address
  if (ctx.settings.local === true && channel != null && address != null) {
    const local = localProblem(channel, address)
    if (local !== null) throw new AlertLocalOnlyError(local)
  }
  const problems: DetailItem[] = []
  if (channel == null) problems.push(missing('channel'))
  if (address == null) problems.push(missing('address'))
  if (channel != null && address != null) {
    const p = addressProblem(channel, address, ctx.settings.allowPrivate)
    if (p !== null) problems.push(detail(loc('address'), `The ${channel} address ${p}`, 'value_error', address))
  }
  const retarget = existing === undefined || channel !== existing.channel || address !== existing.address
  if (channel === 'sms' && retarget && v.consent !== true) {
    problems.push(detail(loc('consent'), 'SMS alerts need the recipient\'s consent: send consent: true', 'value_error', v.consent ?? null))
  }
  if (problems.length > 0) throw new RequestInvalid(problems)
  const now = ts(ctx.now)
  let row: DestinationRow | undefined
  if (existing === undefined) {
    const r = await ctx.tx.query<DestinationRow>(
      `INSERT INTO alert_destinations (id, workspace_id, owner, shared, label, channel, address, consent_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING *`,
      [id, ctx.ws, ctx.actor, v.shared ?? false, v.label ?? '', channel, address, channel === 'sms' ? now : null, now])
    row = r.rows[0]
    // Created under a resource: routed to it straight away (used once verified).
    await ctx.tx.query(
      'INSERT INTO alert_routes (workspace_id, resource_id, destination_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) ON CONFLICT DO NOTHING',
      [ctx.ws, ctx.rid, id, now])
  } else {
    // A new channel or address must be verified again; label and sharing keep the verification.
    const r = await ctx.tx.query<DestinationRow>(
      `UPDATE alert_destinations SET label = $3, shared = $4, channel = $5, address = $6,
         consent_at = CASE WHEN $7 THEN (CASE WHEN $5 = 'sms' THEN $8::timestamptz ELSE NULL END) ELSE consent_at END,
         verified_at = CASE WHEN $7 THEN NULL ELSE verified_at END,
         code_hash = CASE WHEN $7 THEN NULL ELSE code_hash END, code_expires_at = CASE WHEN $7 THEN NULL ELSE code_expires_at END,
         code_attempts = CASE WHEN $7 THEN 0 ELSE code_attempts END,
         revision = revision + 1, updated_at = $8
       WHERE id = $1 AND revision = $2 RETURNING *`,
      [id, v.revision ?? 0, v.label ?? existing.label, v.shared ?? existing.shared, channel, address, retarget, now])
    row = r.rows[0]
    if (row === undefined) throw new AlertStaleRevisionError(`the destination is at revision ${existing.revision}`)
    if (retarget) await cancelQueued(ctx.tx, { destinationId: id, reasons: ['initial', 'repeat', 'escalation', 'test', 'verification'] }, 'cancelled: the address changed')
  }
  return { status: 200, body: { operation: 'save_destination', destination: destinationView(row as DestinationRow, ctx.actor, ctx.now) } }
}

async function requestVerification(ctx: OperationCtx, v: AlertValues): Promise<Outcome> {
  need(v, 'id')
  const d = await destination(ctx, v.id as string)
  if (d.verified_at !== null) throw new AlertAlreadyVerifiedError()
  channelAvailable(ctx.settings, d.channel)
  const windowOpen = d.codes_window_start !== null && new Date(d.codes_window_start).getTime() + HOUR > ctx.now
  if (windowOpen && d.codes_sent >= CODES_PER_HOUR) {
    const wait = new Date(d.codes_window_start as Date).getTime() + HOUR - ctx.now
    const err = new AlertVerificationLimitedError(`at most ${CODES_PER_HOUR} codes an hour; retry in ${Math.ceil(wait / 1000)} s`)
    throw Object.assign(err, { retryAfter: Math.ceil(wait / 1000) })
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
  const expires = ctx.now + CODE_TTL_MS
  const r = await ctx.tx.query<DestinationRow>(
    `UPDATE alert_destinations SET code_hash = $2, code_expires_at = $3, code_attempts = 0,
       codes_window_start = CASE WHEN $4 THEN codes_window_start ELSE $5::timestamptz END,
       codes_sent = CASE WHEN $4 THEN codes_sent + 1 ELSE 1 END
     WHERE id = $1 RETURNING *`, [d.id, codeHash(d.id, code), ts(expires), windowOpen, ts(ctx.now)])
  // An older code still waiting to be sent is void now.
  await cancelQueued(ctx.tx, { destinationId: d.id, reasons: ['verification'] }, 'cancelled: a newer code was requested')
  const eventId = randomUUID()
  const deliveryId = await queueDelivery(ctx.tx, {
    workspaceId: ctx.ws, resourceId: ctx.rid, destinationId: d.id, channel: d.channel, incidentId: null,
    eventType: ALERT_EVENT_TYPES.verification, reason: 'verification', dedupeKey: `verification:${eventId}`,
    message: verificationMessage(eventId, ts(ctx.now), ctx.ws, code), now: ctx.now,
  })
  return {
    status: 200,
    body: {
      operation: 'request_verification', destination: destinationView(r.rows[0] as DestinationRow, ctx.actor, ctx.now),
      delivery: { id: deliveryId, state: 'queued' }, expires_at: ts(expires),
    },
  }
}

async function verifyDestination(ctx: OperationCtx, v: AlertValues): Promise<Outcome> {
  need(v, 'id', 'code')
  const d = await destination(ctx, v.id as string)
  if (d.verified_at !== null) throw new AlertAlreadyVerifiedError()
  if (d.code_hash === null || d.code_expires_at === null || new Date(d.code_expires_at).getTime() <= ctx.now) throw new AlertCodeExpiredError()
  if (d.code_attempts >= CODE_ATTEMPTS) throw new AlertCodeLockedError()
  const given = codeHash(d.id, (v.code as string).trim())
  const stored = Buffer.from(d.code_hash)
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) {
    const r = await ctx.tx.query<{ code_attempts: number }>(
      'UPDATE alert_destinations SET code_attempts = code_attempts + 1 WHERE id = $1 RETURNING code_attempts', [d.id])
    const left = CODE_ATTEMPTS - (r.rows[0]?.code_attempts ?? CODE_ATTEMPTS)
    return {
      status: 422,
      body: { detail: [{ loc: loc('code'), msg: `The verification code is wrong (${left} attempt${left === 1 ? '' : 's'} left)`, type: 'LOOKOUT_ALERT_CODE_INVALID' }] },
    }
  }
  const r = await ctx.tx.query<DestinationRow>(
    `UPDATE alert_destinations SET verified_at = $2, code_hash = NULL, code_expires_at = NULL, code_attempts = 0,
       revision = revision + 1, updated_at = $2 WHERE id = $1 RETURNING *`, [d.id, ts(ctx.now)])
  return { status: 200, body: { operation: 'verify_destination', destination: destinationView(r.rows[0] as DestinationRow, ctx.actor, ctx.now) } }
}

async function pauseDestination(ctx: OperationCtx, v: AlertValues): Promise<Outcome> {
  need(v, 'id', 'revision')
  const d = await destination(ctx, v.id as string)
  const paused = v.paused ?? true
  const r = await ctx.tx.query<DestinationRow>(
    'UPDATE alert_destinations SET paused = $3, revision = revision + 1, updated_at = $4 WHERE id = $1 AND revision = $2 RETURNING *',
    [d.id, v.revision, paused, ts(ctx.now)])
  if (r.rows[0] === undefined) throw new AlertStaleRevisionError(`the destination is at revision ${d.revision}`)
  if (paused) await cancelQueued(ctx.tx, { destinationId: d.id, reasons: ['initial', 'repeat', 'escalation'] }, 'cancelled: the destination was paused')
  return { status: 200, body: { operation: 'pause_destination', destination: destinationView(r.rows[0], ctx.actor, ctx.now) } }
}

async function removeDestination(ctx: OperationCtx, v: AlertValues): Promise<Outcome> {
  need(v, 'id', 'revision')
  const d = await destination(ctx, v.id as string)
  const r = await ctx.tx.query<{ id: string }>(
    `UPDATE alert_destinations SET removed_at = $3, code_hash = NULL, revision = revision + 1, updated_at = $3
     WHERE id = $1 AND revision = $2 RETURNING id`, [d.id, v.revision, ts(ctx.now)])
  if (r.rows[0] === undefined) throw new AlertStaleRevisionError(`the destination is at revision ${d.revision}`)
  await ctx.tx.query('DELETE FROM alert_routes WHERE destination_id = $1', [d.id])
  await cancelQueued(ctx.tx, { destinationId: d.id, reasons: ['initial', 'repeat', 'escalation', 'test', 'verification'] }, 'cancelled: the destination was removed')
  return { status: 200, body: { operation: 'remove_destination', removed: { id: d.id } } }
}

async function testDestination(ctx: OperationCtx, v: AlertValues): Promise<Outcome> {
  need(v, 'id')
  const d = await destination(ctx, v.id as string)
  if (d.verified_at === null) throw new AlertNotVerifiedError()
  channelAvailable(ctx.settings, d.channel)
  const eventId = randomUUID()
  const deliveryId = await queueDelivery(ctx.tx, {
    workspaceId: ctx.ws, resourceId: ctx.rid, destinationId: d.id, channel: d.channel, incidentId: null,
    eventType: ALERT_EVENT_TYPES.test, reason: 'test', dedupeKey: `test:${eventId}`,
    message: testMessage(eventId, ts(ctx.now), ctx.ws, ctx.resource, d.label), now: ctx.now,
  })
  return { status: 200, body: { operation: 'test', delivery: { id: deliveryId, state: 'queued', destination_id: d.id } } }
}

// --- subscription, policy, routes, acknowledgement ---

async function subscribe(ctx: OperationCtx, v: AlertValues): Promise<Outcome> {
  need(v, 'action')
  const given = v.channels ?? {}
  const bad = Object.keys(given).filter((k) => !(CHANNELS as readonly string[]).includes(k))
  if (bad.length > 0) throw new RequestInvalid(bad.map((k) => detail(loc('channels', k), `Unknown channel; expected one of ${CHANNELS.join(', ')}`, 'value_error', k)))
  // An empty string puts that channel back to its default.
  const channels: Record<string, 'on' | 'off'> = {}
  for (const [k, s] of Object.entries(given)) channels[k] = s === '' ? (DEFAULT_CHANNELS[k] ?? 'off') : s
  const action = v.action === 'subscribe' ? 'save' : v.action as 'defaults' | 'unsubscribe'
  const subscription = await changeSubscription(ctx.tx, ctx.ws, ctx.rid, ctx.actor, action, channels)
  return { status: 200, body: { operation: 'subscribe', subscription } }
}

const validatePolicy: ValidateFunction = createAjv().compile(POLICY_CONFIGURATION)

async function savePolicy(ctx: OperationCtx, v: AlertValues): Promise<Outcome> {
  const current = await readPolicy(ctx.tx, ctx.rid)
  checkRevision(current.revision, v.revision, 'the policy')
  let configuration: PolicyConfiguration = current.configuration
  if (v.configuration != null) {
    const candidate = structuredClone(v.configuration)
    if (!validatePolicy(candidate)) {
      throw new RequestInvalid(toDetails(validatePolicy.errors ?? [], 'body').map((d) => ({ ...d, loc: ['body', 'values', 'configuration', ...d.loc.slice(1)] })))
    }
    configuration = policyOf(candidate as Partial<PolicyConfiguration>)
    const problems: DetailItem[] = []
    for (const [i, level] of configuration.escalation.entries()) {
      for (const [j, id] of level.destination_ids.entries()) {
        if ((await lockDestination(ctx.tx, ctx.ws, id.toLowerCase(), ctx.actor)) === undefined) {
          problems.push(detail(loc('configuration', 'escalation', i, 'destination_ids', j), 'No such alert destination', 'value_error', id))
        }
      }
    }
    if (problems.length > 0) throw new RequestInvalid(problems)
    configuration = { ...configuration, escalation: configuration.escalation.map((l) => ({ ...l, destination_ids: l.destination_ids.map((x) => x.toLowerCase()) })) }
  }
  const enabled = v.enabled ?? current.enabled
  const now = ts(ctx.now)
  const r = current.revision === 0
    ? await ctx.tx.query<{ revision: number }>(
      `INSERT INTO alert_policies (workspace_id, resource_id, enabled, configuration, updated_at) VALUES ($1, $2, $3, $4::jsonb, $5)
       ON CONFLICT (resource_id) DO NOTHING RETURNING revision`, [ctx.ws, ctx.rid, enabled, JSON.stringify(configuration), now])
    : await ctx.tx.query<{ revision: number }>(
      `UPDATE alert_policies SET enabled = $3, configuration = $4::jsonb, revision = revision + 1, updated_at = $5
       WHERE resource_id = $1 AND revision = $2 RETURNING revision`, [ctx.rid, current.revision, enabled, JSON.stringify(configuration), now])
  if (r.rows[0] === undefined) throw new AlertStaleRevisionError('the policy changed concurrently')
  // Open incidents follow the new timing from now on.
  await retimeIncidents(ctx.tx, ctx.rid, await readPolicy(ctx.tx, ctx.rid), ctx.now)
  return { status: 200, body: { operation: 'policy', policy: await readPolicy(ctx.tx, ctx.rid) } }
}

interface RouteRow {
  destination_id: string
  paused: boolean
  revision: number
  created_at: Date
  updated_at: Date
}

const routeView = (r: RouteRow) => ({
  destination_id: r.destination_id, paused: r.paused, revision: r.revision,
  created_at: new Date(r.created_at).toISOString(), updated_at: new Date(r.updated_at).toISOString(),
})

async function saveRoute(ctx: OperationCtx, v: AlertValues): Promise<Outcome> {
  need(v, 'id')
  const d = await destination(ctx, v.id as string)
  const now = ts(ctx.now)
  const cur = await ctx.tx.query<RouteRow>('SELECT * FROM alert_routes WHERE resource_id = $1 AND destination_id = $2', [ctx.rid, d.id])
  const existing = cur.rows[0]
  checkRevision(existing?.revision ?? 0, v.revision, 'the route')
  const r = existing === undefined
    ? await ctx.tx.query<RouteRow>(
      `INSERT INTO alert_routes (workspace_id, resource_id, destination_id, paused, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT DO NOTHING RETURNING *`, [ctx.ws, ctx.rid, d.id, v.paused ?? false, now])
    : await ctx.tx.query<RouteRow>(
      `UPDATE alert_routes SET paused = $4, revision = revision + 1, updated_at = $5
       WHERE resource_id = $1 AND destination_id = $2 AND revision = $3 RETURNING *`, [ctx.rid, d.id, existing.revision, v.paused ?? existing.paused, now])
  if (r.rows[0] === undefined) throw new AlertStaleRevisionError('the route changed concurrently')
  return { status: 200, body: { operation: 'save_route', route: routeView(r.rows[0]) } }
}

async function pauseRoute(ctx: OperationCtx, v: AlertValues): Promise<Outcome> {
  need(v, 'id', 'revision')
  const d = await destination(ctx, v.id as string)
  const r = await ctx.tx.query<RouteRow>(
    `UPDATE alert_routes SET paused = $4, revision = revision + 1, updated_at = $5
     WHERE resource_id = $1 AND destination_id = $2 AND revision = $3 RETURNING *`, [ctx.rid, d.id, v.revision, v.paused ?? true, ts(ctx.now)])
  if (r.rows[0] === undefined) {
    const exists = await ctx.tx.query<{ revision: number }>('SELECT revision FROM alert_routes WHERE resource_id = $1 AND destination_id = $2', [ctx.rid, d.id])
    if (exists.rows[0] === undefined) throw new NotFoundError('alert route')
    throw new AlertStaleRevisionError(`the route is at revision ${exists.rows[0].revision}`)
  }
  return { status: 200, body: { operation: 'pause_route', route: routeView(r.rows[0]) } }
}

async function acknowledge(ctx: OperationCtx, v: AlertValues): Promise<Outcome> {
  need(v, 'incident_id')
  const id = (v.incident_id as string).toLowerCase()
  const r = await acknowledgeIncident(ctx.tx, ctx.ws, ctx.rid, id, ctx.actor, ctx.now)
  if (r === 'missing') throw new NotFoundError('incident')
  if (r === 'closed') throw new AlertIncidentClosedError()
  return {
    status: 200,
    body: {
      operation: 'acknowledge',
      incident: { id, state: 'open', acknowledged_at: r.acknowledged_at, acknowledged_by: r.acknowledged_by },
      cancelled_deliveries: r.cancelled,
    },
  }
}

const HANDLERS: Record<Operation, (ctx: OperationCtx, v: AlertValues) => Promise<Outcome>> = {
  save_destination: saveDestination,
  request_verification: requestVerification,
  verify_destination: verifyDestination,
  pause_destination: pauseDestination,
  remove_destination: removeDestination,
  test: testDestination,
  subscribe,
  policy: savePolicy,
  save_route: saveRoute,
  pause_route: pauseRoute,
  acknowledge,
}

/** Runs one AlertChange idempotently by its operation_id. */
export async function runOperation(
  db: Database, base: Omit<OperationCtx, 'tx'>, operation: Operation, values: AlertValues,
): Promise<Outcome> {
  const opId = values.operation_id.toLowerCase()
  const hash = contentHash({ resource: base.rid, actor: base.actor, operation, values: { ...values, operation_id: opId } })
  return db.transaction(async (tx) => {
    const claimed = await tx.query(
      `INSERT INTO alert_operations (workspace_id, operation_id, resource_id, operation, request_hash) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (workspace_id, operation_id) DO NOTHING RETURNING 1`, [base.ws, opId, base.rid, operation, hash])
    if (claimed.rows.length === 0) {
      const prev = await tx.query<{ request_hash: string; status: number; response: unknown }>(
        'SELECT request_hash, status, response FROM alert_operations WHERE workspace_id = $1 AND operation_id = $2', [base.ws, opId])
      const row = prev.rows[0]
      if (row === undefined || row.request_hash !== hash) throw new AlertOperationConflictError()
      return { status: row.status, body: row.response }
    }
    const out = await HANDLERS[operation]({ ...base, tx }, values)
    await tx.query('UPDATE alert_operations SET status = $3, response = $4::jsonb WHERE workspace_id = $1 AND operation_id = $2',
      [base.ws, opId, out.status, JSON.stringify(out.body)])
    return out
  })
}
