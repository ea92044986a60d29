// Service and time-entry routes. Reads need services:read or
// services:usage:read; writes need the write scope plus a staff-audience
// token whose staff member is live (see staff.ts). Writes carry an
// idempotency key (see idempotency.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Database } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { markLocalWrites } from '../projects/routes/plugin.ts'
import type { CursorCodec } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'
import { NotFoundError } from '../../core/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { WORKSPACE_PARAMS } from '../../workspace/index.ts'
import {
  ENTRY_PARAMS, SERVICE_CREATE, SERVICE_LIST_QUERY, SERVICE_PARAMS, SERVICE_UPDATE, TIME_CORRECT, TIME_CREATE, TIME_VOID, USAGE_QUERY,
} from '../../workspace/index.ts'
import { serviceIdempotent as idempotent } from '../../workspace/index.ts'
import { activeStaff, requireStaff, STAFF_PERMISSIONS } from '../../workspace/index.ts'
import {
  createService, getService, listServices, normalizeCreate, serviceExists, updateService, type ServiceInput, type ServicePatch,
} from '../../workspace/index.ts'
import {
  correctEntry, createEntry, listEntries, usageTotals, voidEntry, withoutInternalNotes,
  type TimeActor as Actor, type TimeCorrectInput, type TimeCreateInput, type TimeEntry,
} from '../../workspace/index.ts'

export interface ServiceRoutesOptions {
  db: Database
  cursors: CursorCodec
  /** Served by the desktop service: services and time entries stay local, and their writes say so on a connected workspace. */
  desktop?: boolean
}

const P = '/v1/workspaces/:workspace_id'

type Keyed<T> = T & { idempotency_key: string }

function decodeCursor(cursors: CursorCodec, kind: string, cursor: string | undefined): [string, string] | null {
  if (cursor === undefined) return null
  const v = cursors.decode(kind, cursor)
  if (v === null || v.length !== 2 || typeof v[0] !== 'string' || typeof v[1] !== 'string') {
    throw new RequestInvalid([detail(['query', 'cursor'], 'Invalid cursor', 'value_error')])
  }
  return [v[0], v[1]]
}

export async function serviceRoutes(app: FastifyInstance, opts: ServiceRoutesOptions): Promise<void> {
  const { db, cursors } = opts
  if (opts.desktop === true) markLocalWrites(app, db, /\/services(\/|$)/)
  const cloud = (scope: (typeof SCOPES)[keyof typeof SCOPES]) => ({ auth: { contract: 'cloud', scope }, access: [scope] }) as const

  const actorOf = async (req: FastifyRequest, permission: (typeof STAFF_PERMISSIONS)[keyof typeof STAFF_PERMISSIONS]): Promise<Actor> => {
    const p = principalOf(req)
    const staff = await requireStaff(db, p, req.isOwner, permission)
    return { staffId: staff === 'owner' ? p.staffId : staff.staff_id, keyId: p.tokenId }
  }

  app.get(`${P}/services`, { config: cloud(SCOPES.servicesRead), schema: { params: WORKSPACE_PARAMS, querystring: SERVICE_LIST_QUERY } }, async (req) => {
    const p = principalOf(req)
    const q = req.query as { q: string; cursor?: string; limit: number }
    const page = await listServices(db, p.workspaceId, q.limit, decodeCursor(cursors, 'services', q.cursor), q.q)
    return { items: page.items, next_cursor: page.last === null ? null : cursors.encode('services', page.last) }
  })

  app.post(`${P}/services`, { config: cloud(SCOPES.servicesWrite), schema: { params: WORKSPACE_PARAMS, body: SERVICE_CREATE } }, async (req, reply) => {
    const p = principalOf(req)
    const actor = await actorOf(req, STAFF_PERMISSIONS.manageServices)
    const { idempotency_key: key, ...input } = req.body as Keyed<ServiceInput>
    const values = normalizeCreate(input)
    const out = await idempotent(db, p.workspaceId, key, 'service.create', values, async (tx) => (
      { status: 201, body: await createService(tx, p.workspaceId, values, actor.staffId) }))
    reply.code(out.status)
    return out.body
  })

  app.get(`${P}/services/:service_id`, { config: cloud(SCOPES.servicesRead), schema: { params: SERVICE_PARAMS } }, async (req) => {
    const p = principalOf(req)
    return getService(db, p.workspaceId, (req.params as { service_id: string }).service_id)
  })

  app.patch(`${P}/services/:service_id`, { config: cloud(SCOPES.servicesWrite), schema: { params: SERVICE_PARAMS, body: SERVICE_UPDATE } }, async (req, reply) => {
    const p = principalOf(req)
    await actorOf(req, STAFF_PERMISSIONS.manageServices)
    const id = (req.params as { service_id: string }).service_id
    const { idempotency_key: key, ...patch } = req.body as Keyed<ServicePatch>
    const out = await idempotent(db, p.workspaceId, key, 'service.update', { id, patch }, async (tx) => (
      { status: 200, body: await updateService(tx, p.workspaceId, id, patch) }))
    reply.code(out.status)
    return out.body
  })

  app.get(`${P}/services/:service_id/usage`, { config: cloud(SCOPES.servicesUsageRead), schema: { params: SERVICE_PARAMS, querystring: USAGE_QUERY } }, async (req) => {
    const p = principalOf(req)
    const id = (req.params as { service_id: string }).service_id
    const q = req.query as { cursor?: string; limit: number }
    if (!(await serviceExists(db, p.workspaceId, id))) throw new NotFoundError('service')
    const page = await listEntries(db, p.workspaceId, id, q.limit, decodeCursor(cursors, 'time', q.cursor))
    const staff = await activeStaff(db, p, req.isOwner)
    return {
      service_id: id,
      totals: await usageTotals(db, p.workspaceId, id),
      items: staff === null ? page.items.map(withoutInternalNotes) : page.items,
      next_cursor: page.last === null ? null : cursors.encode('time', page.last),
    }
  })

  const timeWrite = (schema: object, params: object) => ({ config: cloud(SCOPES.servicesUsageWrite), schema: { params, body: schema } })

  app.post(`${P}/services/:service_id/time`, timeWrite(TIME_CREATE, SERVICE_PARAMS), async (req, reply) => {
    const p = principalOf(req)
    const actor = await actorOf(req, STAFF_PERMISSIONS.logTime)
    const serviceId = (req.params as { service_id: string }).service_id
    const { idempotency_key: key, ...input } = req.body as Keyed<TimeCreateInput>
    const request = { serviceId, input: { ...input, state: input.state ?? 'posted', chargeable: input.chargeable ?? true, internal_notes: input.internal_notes ?? '' } }
    const out = await idempotent<TimeEntry>(db, p.workspaceId, key, 'time.create', request, async (tx) => {
      if (!(await serviceExists(tx, p.workspaceId, serviceId))) throw new NotFoundError('service')
      return { status: 201, body: await createEntry(tx, p.workspaceId, serviceId, input, actor) }
    })
    reply.code(out.status)
    return out.body
  })

  app.patch(`${P}/services/:service_id/time/:entry_id`, timeWrite(TIME_CORRECT, ENTRY_PARAMS), async (req) => {
    const p = principalOf(req)
    const actor = await actorOf(req, STAFF_PERMISSIONS.logTime)
    const { service_id: serviceId, entry_id: entryId } = req.params as { service_id: string; entry_id: string }
    const { idempotency_key: key, ...input } = req.body as Keyed<TimeCorrectInput>
    const out = await idempotent<TimeEntry>(db, p.workspaceId, key, 'time.correct', { serviceId, entryId, input }, async (tx) => (
      { status: 200, body: await correctEntry(tx, p.workspaceId, serviceId, entryId, input, actor) }))
    return out.body
  })

  app.post(`${P}/services/:service_id/time/:entry_id/void`, timeWrite(TIME_VOID, ENTRY_PARAMS), async (req) => {
    const p = principalOf(req)
    const actor = await actorOf(req, STAFF_PERMISSIONS.logTime)
    const { service_id: serviceId, entry_id: entryId } = req.params as { service_id: string; entry_id: string }
    const { idempotency_key: key, revision, reason } = req.body as { idempotency_key: string; revision: number; reason: string }
    const out = await idempotent<TimeEntry>(db, p.workspaceId, key, 'time.void', { serviceId, entryId, revision, reason }, async (tx) => (
      { status: 200, body: await voidEntry(tx, p.workspaceId, serviceId, entryId, revision, reason, actor) }))
    return out.body
  })
}
