// What the sync writes into the desktop's project store: a task the portal
// acknowledged takes its canonical id and number; a task edited or created on
// the portal is written locally. These writes go around the project routes on
// purpose: they record activity as the portal sync (so capture does not send
// them back) and never write assignment events (rule 4: portal sync and import
// emit no webhooks); synced tasks are marked origin 'portal' for the same reason.
import type { Database, Sql } from '../../core/index.ts'
import { recordActivity } from '../../workspace/index.ts'
import type { Actor } from '../../workspace/index.ts'
import { boardExists, insertItemFromPortal, insertTaskFromPortal, itemExists, lockItemRow, takePortalNumber, writePortalFields } from '../../workspace/index.ts'
import { adoptId, rewriteQueued } from './id-map.ts'
import { unsentFields } from './outbox.ts'
import { itemFieldsOf, portalChanges, TAXONOMY_FIELDS, type TaskFields, type TaskLike } from './task-fields.ts'

export const SYNC_ACTOR: Actor = { tokenId: 'portal-sync', userId: null, owner: false }

export interface PortalItem {
  item_key: string
  item_type: 'task' | 'note' | 'deliverable'
  local_id: string
  portal_id: string | null
  portal_revision: number | null
  captured: Record<string, unknown>
  captured_revision: number
  /** The portal's fields at portal_revision: the last version both sides agreed on (null before the portal named the item). */
  base: Record<string, unknown> | null
}

const ITEM_KEYS = 'item_key, item_type, local_id, portal_id, portal_revision, captured, captured_revision, base'

export async function readPortalItem(db: Sql, ws: string, itemKey: string): Promise<PortalItem | undefined> {
  const r = await db.query<PortalItem>(`SELECT ${ITEM_KEYS} FROM portal_items WHERE workspace_id = $1 AND item_key = $2`, [ws, itemKey])
  return r.rows[0]
}

type PortalTask = TaskLike & { id: string; number: number | null; revision: number }

/** The portal acknowledged a creation: the local task takes the portal's id and number. */
export async function adoptTask(db: Database, ws: string, itemKey: string, t: PortalTask): Promise<void> {
  await db.transaction(async (tx) => {
    const item = await readPortalItem(tx, ws, itemKey)
    if (item === undefined) return
    await adoptId(tx, ws, 'item', item.local_id, t.id)
    // Tasks name a deliverable in their queued and agreed fields.
    if (item.item_type === 'deliverable') await rewriteQueued(tx, ws, item.local_id, t.id)
    await takePortalNumber(tx, ws, t.id, t.number)
    await tx.query('UPDATE portal_items SET portal_id = $3, portal_revision = $4, base = $5 WHERE workspace_id = $1 AND item_key = $2',
      [ws, itemKey, t.id, t.revision, JSON.stringify(itemFieldsOf(item.item_type, t as never))])
  })
}

/**
 * Writes a portal task locally: an unknown one is inserted with the portal's
 * id and number, a known one is merged (absorb). `deferred`: not written now
 * (its board is not here yet), to be read again next round.
 */
export const APPLY = { applied: 'applied', current: 'current', deferred: 'deferred' } as const
export type ApplyOutcome = (typeof APPLY)[keyof typeof APPLY]

export async function applyPortalTask(db: Database, ws: string, t: PortalTask, taxonomy: boolean, type: PortalItem['item_type'] = 'task'): Promise<ApplyOutcome> {
  return db.transaction(async (tx) => {
    const known = await tx.query<PortalItem>(`SELECT ${ITEM_KEYS} FROM portal_items WHERE workspace_id = $1 AND portal_id = $2 FOR UPDATE`, [ws, t.id])
    const item = known.rows[0]
    if (item === undefined) {
      const incoming = itemFieldsOf(type, t as never)
      const made = type === 'task' ? await insertPortalTask(tx, ws, t, incoming as TaskFields, taxonomy) : await insertPortalOther(tx, ws, t, type, incoming)
      return made ? APPLY.applied : APPLY.deferred
    }
    if (item.portal_revision !== null && item.portal_revision >= t.revision) return APPLY.current
    return absorb(tx, ws, item, t, taxonomy, null)
  })
}

/** absorb() of the portal's answer to this desktop's own operation `seq` (that operation's fields are not "still to be sent"). */
export async function absorbAnswer(db: Database, ws: string, itemKey: string, t: PortalTask, taxonomy: boolean, seq: string): Promise<void> {
  await db.transaction(async (tx) => {
    const r = await tx.query<PortalItem>(`SELECT ${ITEM_KEYS} FROM portal_items WHERE workspace_id = $1 AND item_key = $2 FOR UPDATE`, [ws, itemKey])
    if (r.rows[0] !== undefined) await absorb(tx, ws, r.rows[0], t, taxonomy, seq)
  })
}

/**
 * The three-way merge of a portal version into the local row: a field the
 * portal changed since the last agreed version (`base`) is written here; a
 * field only the desktop changed stays; the portal's version becomes the new
 * base. When the desktop changed a field the portal changed too and has not
 * sent it yet (an edit not captured, or in a pending operation other than
 * `sending`), the version is not taken (`deferred`, read again next round):
 * that edit first meets the portal's revision check.
 */
async function absorb(tx: Sql, ws: string, item: PortalItem, t: PortalTask, taxonomy: boolean, sending: string | null): Promise<ApplyOutcome> {
  const type = item.item_type
  const incoming = itemFieldsOf(type, t as never)
  const row = await lockItemRow(tx, ws, item.local_id)
  if (row === undefined) return APPLY.current
  const local = itemFieldsOf(row.item_type, row)
  if (!taxonomy && type === 'task') for (const f of TAXONOMY_FIELDS) incoming[f] = local[f]
  const base = item.base ?? item.captured
  const unsent = await unsentFields(tx, ws, item.item_key, sending)
  // Changed on both sides and the desktop's value not sent yet: nothing is taken now (the agreed revision
  // stays), so that value meets the portal's revision check and, field by field, becomes a conflict.
  const changes = portalChanges(incoming, base, local, item.captured, unsent)
  if (changes === null) return APPLY.deferred
  // A link to a deliverable not here yet waits for it (read again next round).
  if (typeof changes.deliverable === 'string' && !await itemExists(tx, ws, changes.deliverable)) return APPLY.deferred
  const revision = await writePortalFields(tx, ws, row.id, changes, type === 'task' ? t.number : undefined, row.revision)
  if (Object.keys(changes).length > 0) {
    const before: Record<string, unknown> = {}
    for (const k of Object.keys(changes)) before[k] = local[k]
    await recordActivity(tx, ws, SYNC_ACTOR, {
      boardId: (changes.board_id ?? row.board_id) as string, itemId: row.id, entity: type, action: 'portal_sync',
      summary: `${type === 'task' ? `task #${t.number ?? ''}` : type} ${JSON.stringify(t.title)}: changed on the portal`, before, after: changes,
    })
  }
  // Written fields are captured (never sent back); an edit made after the last capture is still found by the next one.
  const whole = row.revision === item.captured_revision
  const captured = whole ? { ...local, ...changes } : { ...item.captured, ...changes }
  await tx.query('UPDATE portal_items SET portal_revision = $3, base = $4, captured = $5, captured_revision = $6 WHERE workspace_id = $1 AND item_key = $2',
    [ws, item.item_key, t.revision, JSON.stringify(incoming), JSON.stringify(captured), whole ? revision : item.captured_revision])
  return Object.keys(changes).length > 0 ? APPLY.applied : APPLY.current
}

async function insertPortalTask(tx: Sql, ws: string, t: PortalTask, f: TaskFields, taxonomy: boolean): Promise<boolean> {
  // Its board arrives with the next catalogue snapshot, its deliverable with the next pull; the task follows then (deferred).
  if (!await boardExists(tx, ws, f.board_id)) return false
  if (typeof f.deliverable === 'string' && !await itemExists(tx, ws, f.deliverable)) return false
  const typeId = taxonomy ? f.type_id : null
  const labels = taxonomy ? f.label_ids : []
  const revision = await insertTaskFromPortal(tx, ws, { ...f, id: t.id, number: t.number, type_id: typeId, label_ids: labels })
  if (revision === null) return false
  await recordActivity(tx, ws, SYNC_ACTOR, {
    boardId: f.board_id as string, itemId: t.id, entity: 'task', action: 'portal_import',
    summary: `task #${t.number ?? ''} ${JSON.stringify(t.title)}: imported from the portal`, before: null, after: { title: f.title },
  })
  const captured: TaskFields = { ...f, type_id: typeId, label_ids: labels }
  await tx.query(
    `INSERT INTO portal_items (workspace_id, item_key, local_id, portal_id, portal_revision, captured, captured_revision, base)
     VALUES ($1, $2, $2, $2, $3, $4, $5, $4)`, [ws, t.id, t.revision, JSON.stringify(captured), revision])
  return true
}

/** A portal note or deliverable not known here, inserted with the portal's id. */
async function insertPortalOther(tx: Sql, ws: string, n: PortalTask, type: 'note' | 'deliverable', f: Record<string, unknown>): Promise<boolean> {
  if (!await boardExists(tx, ws, f.board_id)) return false
  const revision = await insertItemFromPortal(tx, ws, n.id, type, f)
  if (revision === null) return false
  await recordActivity(tx, ws, SYNC_ACTOR, {
    boardId: f.board_id as string, itemId: n.id, entity: type, action: 'portal_import',
    summary: `${type} ${JSON.stringify(f.title)}: imported from the portal`, before: null, after: { title: f.title },
  })
  await tx.query(
    `INSERT INTO portal_items (workspace_id, item_key, local_id, portal_id, portal_revision, captured, captured_revision, item_type, base)
     VALUES ($1, $2, $2, $2, $3, $4, $5, $6, $4)`, [ws, n.id, n.revision, JSON.stringify(f), revision, type])
  return true
}
