// Sends the outbox to the portal, each task's operations in order. A creation carries its idempotency
// key, so a retry after a lost answer is the portal's replay of the first
// creation, never a second task. An edit is revision-checked by the portal; a
// 409 is first compared with the portal's record (an edit that did land, whose
// answer was lost, is recognized and settled) and otherwise becomes a
// conflict for the owner (retry or drop). Network failures stop the round.
import type { Database } from '../../core/index.ts'
import { PortalRefusal, portalCall, type PortalTarget } from './client.ts'
import type { WorkState } from '../../workspace/index.ts'
import { absorbAnswer, adoptTask, readPortalItem, type PortalItem } from './local-tasks.ts'
import { narrowOp, nextPending, noteAttempt, settle, type OpKind, type OutboxOp } from './outbox.ts'
import { statePath } from './state-path.ts'
import { BATCHES_PER_READ, batchableCreates, CREATE_BATCH, pushCreateBatch } from './push-batch.ts'
import { equalValue, itemFieldsOf, TAXONOMY_FIELDS } from './task-fields.ts'
import type { PortalTask, PushContext } from './push-types.ts'

export type { PortalTask, PushContext } from './push-types.ts'

/** The portal's collection of a task, a note or a deliverable. */
const COLLECTION: Record<string, string> = { task: 'tasks', note: 'notes', deliverable: 'deliverables' }
const T = (c: { portalWs: string }, type: string) => `/v1/workspaces/${c.portalWs}/${COLLECTION[type] ?? 'tasks'}`

function forPortal(c: PushContext, p: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...p }
  if (!c.taxonomy) for (const f of TAXONOMY_FIELDS) delete out[f]
  return out
}

/** The portal's copy of a task (deleted or not) or a note; undefined when it has none. */
export async function fetchPortalTask(c: { target: PortalTarget; portalWs: string }, id: string, type = 'task'): Promise<PortalTask | undefined> {
  for (const deleted of type === 'task' ? [false, true] : [false]) {
    try {
      return (await portalCall<PortalTask>(c.target, 'GET', `${T(c, type)}/${id}`, undefined, { query: { deleted } })).body
    } catch (err) {
      if (!(err instanceof PortalRefusal && err.status === 404)) throw err
    }
  }
  return undefined
}

async function sendCreate(c: PushContext, op: OutboxOp, type: string): Promise<void> {
  const { archived: _a, deleted: _d, state: _s, blocked_reason: _b, ...fields } = op.payload
  const body = { idempotency_key: op.idempotency_key, ...forPortal(c, fields) }
  const out = await portalCall<PortalTask>(c.target, 'POST', T(c, type), body)
  await adoptTask(c.db, c.ws, op.item_key, out.body)
  c.touched?.add(out.body.id)
}

/** The portal's state and reviewer an edit starts from (its base), fetched when the base does not hold the state (before issue 32). */
interface From { state: WorkState; reviewer: number | null }

/**
 * One edit as the portal's routes take it: restore, move, reviewer, the work
 * state as actions, field changes, archive/trash; each revision-checked.
 * Returns the portal's task after the last call (null when nothing was sent).
 */
async function sendUpdate(c: PushContext, payload: Record<string, unknown>, type: string, portalId: string, revision: number, from: () => Promise<From>): Promise<PortalTask | null> {
  const p = forPortal(c, payload)
  const { board_id: board, archived, deleted, state, blocked_reason: reason, ...fields } = p
  // Portal notes and deliverables have no trash and no move: such a change is refused here, for the owner to see.
  if (type !== 'task' && (deleted !== undefined || board !== undefined)) {
    throw new PortalRefusal(422, { detail: [{ type: 'not_synced', msg: `portal ${type}s cannot be trashed or moved to another board` }] }, type)
  }
  let rev = revision
  let last: PortalTask | null = null
  const call = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, body: Record<string, unknown>) => {
    last = (await portalCall<PortalTask>(c.target, method, `${T(c, type)}/${portalId}${path}`, { ...body, revision: rev })).body
    rev = last.revision
  }
  if (deleted === false) await call('POST', '/actions', { action: 'restore' })
  if (archived === false) await call('POST', '/actions', { action: 'restore' })
  if (board !== undefined) {
    const status = fields.status_id
    delete fields.status_id
    await call('POST', '/move', { target_board_id: board, target_status_id: status })
  }
  if (state !== undefined || reason !== undefined) {
    const f = await from()
    // The reviewer first: it decides whether done is reached by approve or directly.
    if (fields.reviewer !== undefined && fields.reviewer !== f.reviewer) {
      await call('PATCH', '', { reviewer: fields.reviewer })
      f.reviewer = fields.reviewer as number | null
      delete fields.reviewer
    }
    const to = (state ?? f.state) as WorkState
    const path = statePath(f.state, to, f.reviewer)
    if (path === null) {
      throw new PortalRefusal(422, { detail: [{ type: 'transition', msg: `the portal's task cannot go from ${f.state} to ${to}` }] }, 'state')
    }
    for (const step of path) {
      await call('POST', '/actions', { action: step.action, ...(step.state === undefined ? {} : { state: step.state }), ...(step.state === 'blocked' ? { blocked_reason: reason } : {}) })
    }
    if (path.length === 0 && to === 'blocked' && typeof reason === 'string' && reason !== '') await call('POST', '/actions', { action: 'update', blocked_reason: reason })
  }
  if (Object.keys(fields).length > 0) await call('PATCH', '', fields)
  if (archived === true) await call('POST', '/actions', { action: 'archive' })
  if (deleted === true) await call('DELETE', '', {})
  return last
}

/** Whether the portal's record already holds every value the operation sends (an edit that landed). */
function landed(c: PushContext, payload: Record<string, unknown>, type: string, t: PortalTask): boolean {
  const now = itemFieldsOf(type, t as never)
  return Object.entries(forPortal(c, payload)).every(([k, v]) => equalValue(now[k], v))
}

/** Operations in flight at once (each of a different task). */
export const PUSH_WINDOW = 8

/**
 * Sends pending operations until none is left, each task's in order, up to
 * PUSH_WINDOW tasks at a time; throws PortalUnreachable when offline (after
 * the operations in flight have settled). Returns how many were sent.
 */
export async function pushOutbox(c: PushContext, kinds: readonly OpKind[] = ['item'], send: (c: PushContext, op: OutboxOp) => Promise<boolean> = sendOne): Promise<number> {
  let n = 0
  for (;;) {
    const batch = c.batch === true && send === sendOne && kinds.includes('item')
    let ops = await nextPending(c.db, c.ws, batch ? CREATE_BATCH * BATCHES_PER_READ : PUSH_WINDOW, kinds)
    if (ops.length === 0) return n
    // Task creations go in one batch request (feature task-batch-v1); the rest one by one, PUSH_WINDOW at a time.
    const creates = batch ? await batchableCreates(c.db, c.ws, ops) : new Set<OutboxOp>()
    if (creates.size > 0) {
      n += await pushCreateBatch(c, [...creates])
      ops = ops.filter((op) => !creates.has(op)).slice(0, PUSH_WINDOW)
    }
    const results = await Promise.allSettled(ops.map((op) => send(c, op)))
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
      await sendEdit(c, op, type, item as PortalItem & { portal_id: string; portal_revision: number })
      c.touched?.add(item.portal_id)
    }
    await settle(c.db, c.ws, op.seq, 'done')
    return true
  } catch (err) {
    return settleFailure(c, op, err)
  }
}

/** A failed send: a refusal settles the operation for the owner (409: conflict); anything else is noted and stops the round. */
export async function settleFailure(c: PushContext, op: OutboxOp, err: unknown): Promise<false> {
  if (!(err instanceof PortalRefusal)) {
    await noteAttempt(c.db, c.ws, op.seq, (err as Error).message)
    throw err
  }
  await settle(c.db, c.ws, op.seq, err.status === 409 ? 'conflict' : 'refused', err.message)
  return false
}

/**
 * An edit, merged field by field: sent against the last agreed revision; on a
 * 409 the portal's task is compared with the agreed version (base). Fields the
 * portal did not change (or changed to the same value) are sent again against
 * its current revision; a field changed differently on both sides stays in the
 * operation as a conflict for the owner (unless the owner retried it: forced).
 * The portal's answer is merged locally (absorbAnswer), so its other changes show here.
 */
async function sendEdit(c: PushContext, op: OutboxOp, type: string, item: PortalItem & { portal_id: string; portal_revision: number }): Promise<void> {
  const base = item.base ?? item.captured
  const fromBase = async (): Promise<From> => {
    if (typeof base.state === 'string') return { state: base.state as WorkState, reviewer: (base.reviewer ?? null) as number | null }
    const t = await fetchPortalTask(c, item.portal_id, type)
    return { state: (t?.state ?? 'open') as WorkState, reviewer: t?.reviewer ?? null }
  }
  try {
    const answer = await sendUpdate(c, op.payload, type, item.portal_id, item.portal_revision, fromBase)
    if (answer !== null) await absorbAnswer(c.db, c.ws, op.item_key, answer, c.taxonomy, op.seq)
    return
  } catch (err) {
    if (!(err instanceof PortalRefusal && err.status === 409)) throw err
    const t = await fetchPortalTask(c, item.portal_id, type)
    if (t === undefined) throw err
    if (!landed(c, op.payload, type, t)) {
      const now = itemFieldsOf(type, t as never)
      const clash = op.forced ? [] : Object.keys(op.payload).filter((f) => !equalValue(now[f], base[f]) && !equalValue(now[f], op.payload[f]))
      const rest = Object.fromEntries(Object.entries(op.payload).filter(([f, v]) => !clash.includes(f) && !equalValue(now[f], v)))
      // A blocked reason goes with its state.
      if (clash.includes('state')) delete rest.blocked_reason
      const from = async (): Promise<From> => ({ state: (t.state ?? 'open') as WorkState, reviewer: t.reviewer })
      const answer = Object.keys(rest).length > 0 ? await sendUpdate(c, rest, type, t.id, t.revision, from) : null
      await absorbAnswer(c.db, c.ws, op.item_key, answer ?? t, c.taxonomy, op.seq)
      if (clash.length > 0) {
        await narrowOp(c.db, c.ws, op.seq, Object.fromEntries(clash.map((f) => [f, op.payload[f]])))
        throw new PortalRefusal(409, { detail: [{ type: 'conflict', msg: `changed on both sides: ${clash.join(', ')}` }] }, `${type} ${item.portal_id}`)
      }
      return
    }
    await absorbAnswer(c.db, c.ws, op.item_key, t, c.taxonomy, op.seq)
  }
}
