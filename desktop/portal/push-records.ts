// Sends the outbox's comment and edge operations, after the round's task and
// note operations (a comment follows its task's creation; an edge its items').
// A creation carries its idempotency key (a retry after a lost answer is the
// portal's replay); an edit or a deletion is revision-checked, and a 409 is
// merged like a task's: landed values settle, a field the portal did not
// change is sent again, a field changed differently on both sides is a
// conflict for the owner (the portal's value shown here meanwhile).
import { PortalRefusal, portalCall } from './client.ts'
import { narrowOp, settle, type OutboxOp } from './outbox.ts'
import { pushOutbox, settleFailure, type PushContext } from './push.ts'
import { adoptRecord, applyPortalRecord, readRecord, recordFields, type PortalRecord, type RecordRow } from './records.ts'
import { equalValue } from './task-fields.ts'

type Page<T> = { items: T[]; next_cursor: string | null }
type CommentView = { id: string; item_id: string; body: string; visibility: string; author: number | null; revision: number; deleted: boolean }
type EdgeView = { id: string; from_id: string; to_id: string; relation: string; revision: number; deleted: boolean }

export function fromComment(c: CommentView): PortalRecord {
  return { id: c.id, kind: 'comment', item_id: c.item_id, to_id: null, relation: null, body: c.body, visibility: c.visibility, author: c.author, revision: c.revision, deleted: c.deleted }
}

export function fromEdge(e: EdgeView): PortalRecord {
  return { id: e.id, kind: 'edge', item_id: e.from_id, to_id: e.to_id, relation: e.relation, body: null, visibility: null, author: null, revision: e.revision, deleted: e.deleted }
}

type Target = Pick<PushContext, 'target' | 'portalWs'>

/** Every page of a portal list. */
export async function readAll<T>(c: Target, path: string, query: Record<string, string | number | boolean>): Promise<T[]> {
  const out: T[] = []
  let cursor: string | undefined
  do {
    const r = await portalCall<Page<T>>(c.target, 'GET', path, undefined, { query: { limit: 100, ...query, cursor } })
    out.push(...r.body.items)
    cursor = r.body.next_cursor ?? undefined
  } while (cursor !== undefined)
  return out
}

/** A task's comments on the portal (live and deleted). */
export async function portalComments(c: Target, taskId: string): Promise<PortalRecord[]> {
  const path = `/v1/workspaces/${c.portalWs}/tasks/${taskId}/comments`
  return [...await readAll<CommentView>(c, path, {}), ...await readAll<CommentView>(c, path, { deleted: true })].map(fromComment)
}

/** The portal's edges (live and tombstones), of one item or of the whole workspace. */
export async function portalEdges(c: Target, itemId?: string): Promise<PortalRecord[]> {
  const q = { workspace_id: c.portalWs, ...(itemId === undefined ? {} : { item_id: itemId }) }
  return [...await readAll<EdgeView>(c, '/v1/projects/edges', q), ...await readAll<EdgeView>(c, '/v1/projects/edges', { ...q, deleted: true })].map(fromEdge)
}

/** The portal id of an item a record names by its sync key; null when it has not reached the portal. */
async function portalItemId(c: PushContext, key: string | null | undefined): Promise<string | null> {
  if (key == null) return null
  const r = await c.db.query<{ portal_id: string | null }>('SELECT portal_id FROM portal_items WHERE workspace_id = $1 AND item_key = $2', [c.ws, key])
  return r.rows[0]?.portal_id ?? null
}

/** Sends pending comment and edge operations, each record's in order; throws PortalUnreachable when offline. */
export function pushRecords(c: PushContext): Promise<number> {
  return pushOutbox(c, ['comment', 'edge'], sendRecordOp)
}

async function sendRecordOp(c: PushContext, op: OutboxOp): Promise<boolean> {
  const rec = await readRecord(c.db, c.ws, op.item_key)
  try {
    if (rec === undefined) throw new PortalRefusal(422, { detail: [{ type: 'not_found', msg: 'the record is gone' }] }, op.kind)
    const item = await portalItemId(c, rec.captured.item_key)
    const to = rec.kind === 'edge' ? await portalItemId(c, rec.captured.to_key) : null
    if (item === null || (rec.kind === 'edge' && to === null)) {
      await settle(c.db, c.ws, op.seq, 'refused', `the ${rec.kind === 'comment' ? 'task' : 'items'} of this ${rec.kind} did not reach the portal (only synced tasks and notes are)`)
      return false
    }
    if (op.op === 'create') await createRecord(c, op, rec, item, to)
    else if (rec.portal_id === null || rec.portal_revision === null) {
      await settle(c.db, c.ws, op.seq, 'refused', `the ${rec.kind} has not reached the portal yet (its creation needs attention)`)
      return false
    } else await editRecord(c, op, rec as RecordRow & { portal_id: string; portal_revision: number }, item)
    await settle(c.db, c.ws, op.seq, 'done')
    return true
  } catch (err) {
    return settleFailure(c, op, err)
  }
}

async function createRecord(c: PushContext, op: OutboxOp, rec: RecordRow, item: string, to: string | null): Promise<void> {
  if (rec.kind === 'comment') {
    const out = await portalCall<CommentView>(c.target, 'POST', `/v1/workspaces/${c.portalWs}/tasks/${item}/comments`, { idempotency_key: op.idempotency_key, ...op.payload })
    await adoptRecord(c.db, c.ws, rec.record_key, fromComment(out.body))
    return
  }
  const body = { idempotency_key: op.idempotency_key, from_id: item, to_id: to, relation: op.payload.relation }
  try {
    const out = await portalCall<EdgeView>(c.target, 'POST', '/v1/projects/edges', body)
    await adoptRecord(c.db, c.ws, rec.record_key, fromEdge(out.body))
  } catch (err) {
    if (!(err instanceof PortalRefusal && err.status === 409)) throw err
    // The same live edge was made on the portal too: this one becomes it.
    const same = (await portalEdges(c, item)).find((e) => !e.deleted && e.item_id === item && e.to_id === to && e.relation === op.payload.relation)
    if (same === undefined) throw err
    await adoptRecord(c.db, c.ws, rec.record_key, same)
  }
}

/** One edit (a comment's body, a deletion) as the portal's routes take it, against `revision`. */
async function sendRecordEdit(c: PushContext, op: OutboxOp, rec: RecordRow, item: string, portalId: string, revision: number, payload: Record<string, unknown>): Promise<PortalRecord> {
  if (rec.kind === 'edge') {
    const out = await portalCall<EdgeView>(c.target, 'DELETE', `/v1/projects/edges/${portalId}`, { idempotency_key: op.idempotency_key, revision })
    return fromEdge(out.body)
  }
  const path = `/v1/workspaces/${c.portalWs}/tasks/${item}/comments/${portalId}`
  let rev = revision
  let last: PortalRecord | null = null
  if (typeof payload.body === 'string') {
    last = fromComment((await portalCall<CommentView>(c.target, 'PATCH', path, { revision: rev, body: payload.body })).body)
    rev = last.revision
  }
  if (payload.deleted === true) last = fromComment((await portalCall<CommentView>(c.target, 'DELETE', path, { revision: rev })).body)
  if (last === null) throw new PortalRefusal(422, { detail: [{ type: 'not_synced', msg: 'a deleted comment or edge cannot be restored on the portal' }] }, rec.kind)
  return last
}

async function editRecord(c: PushContext, op: OutboxOp, rec: RecordRow & { portal_id: string; portal_revision: number }, item: string): Promise<void> {
  try {
    await applyPortalRecord(c.db, c.ws, await sendRecordEdit(c, op, rec, item, rec.portal_id, rec.portal_revision, op.payload), op.seq)
    return
  } catch (err) {
    if (!(err instanceof PortalRefusal && err.status === 409)) throw err
    const found = rec.kind === 'comment' ? await portalComments(c, item) : await portalEdges(c, item)
    const now = found.find((x) => x.id === rec.portal_id)
    if (now === undefined) throw err
    const fields = recordFields(now)
    const base = rec.base ?? rec.captured
    // An edit of a comment deleted on the portal cannot land: it is a conflict (drop it, or it stays).
    const clash = Object.keys(op.payload).filter((f) => (now.deleted && f === 'body') || (!op.forced && !equalValue(fields[f], base[f]) && !equalValue(fields[f], op.payload[f])))
    const rest = Object.fromEntries(Object.entries(op.payload).filter(([f, v]) => !clash.includes(f) && !equalValue(fields[f], v)))
    const answer = Object.keys(rest).length > 0 ? await sendRecordEdit(c, op, rec, item, now.id, now.revision, rest) : now
    await applyPortalRecord(c.db, c.ws, answer, op.seq)
    if (clash.length > 0) {
      await narrowOp(c.db, c.ws, op.seq, Object.fromEntries(clash.map((f) => [f, op.payload[f]])))
      throw new PortalRefusal(409, { detail: [{ type: 'conflict', msg: `changed on both sides: ${clash.join(', ')}` }] }, `${rec.kind} ${rec.portal_id}`)
    }
  }
}
