// Sends the outbox to the portal, each task's operations in order. A creation carries its idempotency
// key, so a retry after a lost answer is the portal's replay of the first
// creation, never a second task. An edit is revision-checked by the portal; a
// 409 is first compared with the portal's record (an edit that did land, whose
// answer was lost, is recognized and settled) and otherwise becomes a
// conflict for the owner (retry or drop). Network failures stop the round.
import type { Database } from '../../core/index.ts'
import { PortalRefusal, portalCall, type PortalTarget } from './client.ts'
import { adoptTask, readPortalItem } from './local-tasks.ts'
import { nextPending, noteAttempt, settle, type OutboxOp } from './outbox.ts'
import { equalValue, itemFieldsOf, TAXONOMY_FIELDS, type TaskLike } from './task-fields.ts'

export interface PushContext {
  db: Database
  ws: string
  portalWs: string
  target: PortalTarget
  taxonomy: boolean
}

/** A task (or note) as the portal returns it. */
export type PortalTask = TaskLike & { id: string; number: number | null; revision: number }

/** The portal's collection of a task or a note. */
const T = (c: PushContext, type: string) => `/v1/workspaces/${c.portalWs}/${type === 'note' ? 'notes' : 'tasks'}`

function forPortal(c: PushContext, p: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...p }
  if (!c.taxonomy) for (const f of TAXONOMY_FIELDS) delete out[f]
  return out
}

/** The portal's copy of a task (deleted or not) or a note; undefined when it has none. */
export async function fetchPortalTask(c: { target: PortalTarget; portalWs: string }, id: string, type = 'task'): Promise<PortalTask | undefined> {
  for (const deleted of type === 'note' ? [false] : [false, true]) {
    try {
      return (await portalCall<PortalTask>(c.target, 'GET', `/v1/workspaces/${c.portalWs}/${type === 'note' ? 'notes' : 'tasks'}/${id}`, undefined, { query: { deleted } })).body
    } catch (err) {
      if (!(err instanceof PortalRefusal && err.status === 404)) throw err
    }
  }
  return undefined
}

async function sendCreate(c: PushContext, op: OutboxOp, type: string): Promise<void> {
  const { archived: _a, deleted: _d, ...fields } = op.payload
  const body = { idempotency_key: op.idempotency_key, ...forPortal(c, fields) }
  const out = await portalCall<PortalTask>(c.target, 'POST', T(c, type), body)
  await adoptTask(c.db, c.ws, op.item_key, out.body)
}

/** One edit as the portal's routes take it: move, field changes, archive/trash/restore; each revision-checked. */
async function sendUpdate(c: PushContext, op: OutboxOp, type: string, portalId: string, revision: number): Promise<number> {
  const p = forPortal(c, op.payload)
  const { board_id: board, archived, deleted, ...fields } = p
  // Portal notes have no trash and no move: such a change is refused here, for the owner to see.
  if (type === 'note' && (deleted !== undefined || board !== undefined)) {
    throw new PortalRefusal(422, { detail: [{ type: 'not_synced', msg: 'portal notes cannot be trashed or moved to another board' }] }, 'note')
  }
  let rev = revision
  const call = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, body: Record<string, unknown>) => {
    rev = (await portalCall<PortalTask>(c.target, method, `${T(c, type)}/${portalId}${path}`, { ...body, revision: rev })).body.revision
  }
  if (deleted === false) await call('POST', '/actions', { action: 'restore' })
  if (archived === false) await call('POST', '/actions', { action: 'restore' })
  if (board !== undefined) {
    const status = fields.status_id
    delete fields.status_id
    await call('POST', '/move', { target_board_id: board, target_status_id: status })
  }
  if (Object.keys(fields).length > 0) await call('PATCH', '', fields)
  if (archived === true) await call('POST', '/actions', { action: 'archive' })
  if (deleted === true) await call('DELETE', '', {})
  return rev
}

/** Whether the portal's record already holds every value the operation sends (an edit that landed). */
function landed(c: PushContext, op: OutboxOp, type: string, t: PortalTask): boolean {
  const now = itemFieldsOf(type, t as never)
  return Object.entries(forPortal(c, op.payload)).every(([k, v]) => equalValue(now[k], v))
}

/** Operations in flight at once (each of a different task). */
export const PUSH_WINDOW = 8

/**
 * Sends pending operations until none is left, each task's in order, up to
 * PUSH_WINDOW tasks at a time; throws PortalUnreachable when offline (after
 * the operations in flight have settled). Returns how many were sent.
 */
export async function pushOutbox(c: PushContext): Promise<number> {
  let n = 0
  for (;;) {
    const ops = await nextPending(c.db, c.ws, PUSH_WINDOW)
    if (ops.length === 0) return n
    const results = await Promise.allSettled(ops.map((op) => sendOne(c, op)))
    for (const r of results) if (r.status === 'fulfilled' && r.value) n++
    const failed = results.find((r) => r.status === 'rejected')
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason
  }
}

/** Sends one operation and settles it; true when the portal took it. */
async function sendOne(c: PushContext, op: OutboxOp): Promise<boolean> {
  const item = await readPortalItem(c.db, c.ws, op.item_key)
  try {
    const type = item?.item_type ?? 'task'
    if (op.op === 'create') {
      await sendCreate(c, op, type)
    } else if (item?.portal_id == null || item.portal_revision === null) {
      // Its creation is not acknowledged (it failed and waits for the owner): this edit waits with it.
      await settle(c.db, c.ws, op.seq, 'refused', 'the task has not reached the portal yet (its creation needs attention)')
      return false
    } else {
      try {
        const rev = await sendUpdate(c, op, type, item.portal_id, item.portal_revision)
        await c.db.query('UPDATE portal_items SET portal_revision = $3 WHERE workspace_id = $1 AND item_key = $2', [c.ws, op.item_key, rev])
      } catch (err) {
        if (!(err instanceof PortalRefusal && err.status === 409)) throw err
        const t = await fetchPortalTask(c, item.portal_id, type)
        if (t === undefined || !landed(c, op, type, t)) throw err
        await c.db.query('UPDATE portal_items SET portal_revision = $3 WHERE workspace_id = $1 AND item_key = $2', [c.ws, op.item_key, t.revision])
      }
    }
    await settle(c.db, c.ws, op.seq, 'done')
    return true
  } catch (err) {
    if (!(err instanceof PortalRefusal)) {
      await noteAttempt(c.db, c.ws, op.seq, (err as Error).message)
      throw err
    }
    await settle(c.db, c.ws, op.seq, err.status === 409 ? 'conflict' : 'refused', err.message)
    return false
  }
}
