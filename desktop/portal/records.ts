// Comments and edges in the sync: capture into the outbox (the same one as
// tasks: revisioned operations with their own idempotency keys), the portal's
// canonical id taken over once it acknowledged a creation, and the three-way
// merge of a portal version into the local record. A record names its task
// (or an edge its two items) by the item's sync key (portal_items.item_key),
// which survives the item's own canonical id adoption.
import type { Database, Sql } from '../../core/index.ts'
import { insertPortalRecord, recordActivity, recordRevisions, recordsByIds, writeRecord } from '../../workspace/index.ts'
import type { SyncRecord, SyncRecordKind } from '../../workspace/index.ts'
import { adoptId } from './id-map.ts'
import { APPLY, SYNC_ACTOR, type ApplyOutcome } from './local-tasks.ts'
import { enqueue, unsentFields } from './outbox.ts'
import { changedFields, portalChanges } from './task-fields.ts'

export const RECORD_KINDS: readonly SyncRecordKind[] = ['comment', 'edge']

/** The fields that change after creation: a comment's body and deletion, an edge's tombstone. */
export function recordFields(r: Pick<SyncRecord, 'kind' | 'body' | 'deleted'>): Record<string, unknown> {
  return r.kind === 'comment' ? { body: r.body, deleted: r.deleted } : { deleted: r.deleted }
}

export interface RecordRow {
  record_key: string
  kind: SyncRecordKind
  local_id: string
  portal_id: string | null
  portal_revision: number | null
  captured: Record<string, unknown> & { item_key?: string | null; to_key?: string | null }
  captured_revision: number
  base: Record<string, unknown> | null
}

const REC_COLS = 'record_key, kind, local_id, portal_id, portal_revision, captured, captured_revision, base'

export async function readRecord(db: Sql, ws: string, key: string): Promise<RecordRow | undefined> {
  return (await db.query<RecordRow>(`SELECT ${REC_COLS} FROM portal_records WHERE workspace_id = $1 AND record_key = $2`, [ws, key])).rows[0]
}

/** Sync keys of local items by their current ids. */
async function itemKeys(db: Sql, ws: string, ids: string[]): Promise<Map<string, string>> {
  const r = await db.query<{ local_id: string; item_key: string }>('SELECT local_id, item_key FROM portal_items WHERE workspace_id = $1 AND local_id = ANY($2::uuid[])', [ws, ids])
  return new Map(r.rows.map((x) => [x.local_id, x.item_key]))
}

/**
 * Turns comment and edge changes not yet captured into outbox operations: a
 * creation (body and visibility, or the relation) for a record the portal has
 * not seen, else the changed fields. A record made and deleted before it was
 * ever captured is recorded and never sent. Returns how many operations.
 */
export async function captureRecords(db: Database, ws: string): Promise<number> {
  let n = 0
  for (const kind of RECORD_KINDS) {
    const known = await db.query<{ local_id: string; captured_revision: number }>(
      'SELECT local_id, captured_revision FROM portal_records WHERE workspace_id = $1 AND kind = $2', [ws, kind])
    const seen = new Map(known.rows.map((r) => [r.local_id, r.captured_revision]))
    const changed = (await recordRevisions(db, ws, kind)).filter((r) => r.revision > (seen.get(r.id) ?? 0)).map((r) => r.id)
    if (changed.length === 0) continue
    n += await db.transaction(async (tx) => {
      let ops = 0
      const rows = await recordsByIds(tx, ws, kind, changed)
      const keys = await itemKeys(tx, ws, rows.flatMap((r) => (r.to_id === null ? [r.item_id] : [r.item_id, r.to_id])))
      const cur = await tx.query<RecordRow>(`SELECT ${REC_COLS} FROM portal_records WHERE workspace_id = $1 AND local_id = ANY($2::uuid[]) FOR UPDATE`, [ws, changed])
      const mine = new Map(cur.rows.map((r) => [r.local_id, r]))
      for (const row of rows) {
        const now = recordFields(row)
        const had = mine.get(row.id)
        if (had === undefined) {
          const captured = { ...now, item_key: keys.get(row.item_id) ?? null, to_key: row.to_id === null ? null : keys.get(row.to_id) ?? null }
          await tx.query('INSERT INTO portal_records (workspace_id, record_key, kind, local_id, captured, captured_revision) VALUES ($1, $2, $3, $2, $4, $5)',
            [ws, row.id, kind, JSON.stringify(captured), row.revision])
          if (row.deleted) continue
          await enqueue(tx, ws, row.id, 'create', kind === 'comment' ? { body: row.body, visibility: row.visibility } : { relation: row.relation }, kind)
          ops++
          continue
        }
        if (row.revision <= had.captured_revision) continue
        const diff = changedFields(had.captured, now)
        await tx.query('UPDATE portal_records SET captured = $3, captured_revision = $4 WHERE workspace_id = $1 AND record_key = $2',
          [ws, had.record_key, JSON.stringify({ ...had.captured, ...now }), row.revision])
        if (Object.keys(diff).length === 0) continue
        await enqueue(tx, ws, had.record_key, 'update', diff, kind)
        ops++
      }
      return ops
    })
  }
  return n
}

/** A portal comment or edge as the sync reads it (its item ids are the portal's). */
export type PortalRecord = SyncRecord

/** The portal acknowledged a creation: the local record takes the portal's id; the old one stays in the id map. */
export async function adoptRecord(db: Database, ws: string, key: string, p: PortalRecord): Promise<void> {
  await db.transaction(async (tx) => {
    const rec = await readRecord(tx, ws, key)
    if (rec === undefined) return
    await adoptId(tx, ws, rec.kind, rec.local_id, p.id)
    await tx.query('UPDATE portal_records SET local_id = $3, portal_id = $3, portal_revision = $4, base = $5 WHERE workspace_id = $1 AND record_key = $2',
      [ws, key, p.id, p.revision, JSON.stringify(recordFields(p))])
  })
}

/** The local item that holds a portal item id (its canonical id, or the id it had before adopting it). */
async function localItem(tx: Sql, ws: string, portalItemId: string): Promise<{ local_id: string; item_key: string } | undefined> {
  return (await tx.query<{ local_id: string; item_key: string }>('SELECT local_id, item_key FROM portal_items WHERE workspace_id = $1 AND portal_id = $2', [ws, portalItemId])).rows[0]
}

/**
 * Writes a portal comment or edge locally: an unknown one is inserted with the
 * portal's id (deferred while its task is not here), a known one is merged
 * three ways against `base`, like a task (local-tasks.ts absorb).
 */
export async function applyPortalRecord(db: Database, ws: string, p: PortalRecord, sending: string | null = null): Promise<ApplyOutcome> {
  return db.transaction(async (tx) => {
    const known = await tx.query<RecordRow>(`SELECT ${REC_COLS} FROM portal_records WHERE workspace_id = $1 AND portal_id = $2 FOR UPDATE`, [ws, p.id])
    const rec = known.rows[0]
    // A tombstone of a record this desktop never had brings nothing.
    if (rec === undefined) return p.deleted ? APPLY.current : insertRecord(tx, ws, p)
    if (sending === null && rec.portal_revision !== null && rec.portal_revision >= p.revision) return APPLY.current
    return absorbRecord(tx, ws, rec, p, sending)
  })
}

async function insertRecord(tx: Sql, ws: string, p: PortalRecord): Promise<ApplyOutcome> {
  const from = await localItem(tx, ws, p.item_id)
  const to = p.to_id === null ? undefined : await localItem(tx, ws, p.to_id)
  if (from === undefined || (p.to_id !== null && to === undefined)) return APPLY.deferred
  const revision = await insertPortalRecord(tx, ws, { ...p, item_id: from.local_id, to_id: to?.local_id ?? null })
  // A live edge between the same items already here (made on both sides) stays the local one.
  if (revision === null) return p.kind === 'edge' ? APPLY.current : APPLY.deferred
  await recordActivity(tx, ws, SYNC_ACTOR, {
    boardId: null, itemId: from.local_id, entity: p.kind, action: 'portal_import', summary: `${p.kind}: imported from the portal`,
    before: null, after: { [`${p.kind}_id`]: p.id },
  })
  const captured = { ...recordFields(p), item_key: from.item_key, to_key: to?.item_key ?? null }
  await tx.query(
    `INSERT INTO portal_records (workspace_id, record_key, kind, local_id, portal_id, portal_revision, captured, captured_revision, base)
     VALUES ($1, $2, $3, $2, $2, $4, $5, $6, $7)`, [ws, p.id, p.kind, p.revision, JSON.stringify(captured), revision, JSON.stringify(recordFields(p))])
  return APPLY.applied
}

async function absorbRecord(tx: Sql, ws: string, rec: RecordRow, p: PortalRecord, sending: string | null): Promise<ApplyOutcome> {
  const row = (await recordsByIds(tx, ws, rec.kind, [rec.local_id]))[0]
  if (row === undefined) return APPLY.current
  const local = recordFields(row)
  const incoming = recordFields(p)
  const base = rec.base ?? rec.captured
  const unsent = await unsentFields(tx, ws, rec.record_key, sending)
  const changes = portalChanges(incoming, base, local, rec.captured, unsent)
  if (changes === null) return APPLY.deferred
  let revision = row.revision
  if (Object.keys(changes).length > 0) {
    revision = (await writeRecord(tx, ws, rec.kind, row.id, changes)) ?? revision
    await recordActivity(tx, ws, SYNC_ACTOR, {
      boardId: null, itemId: row.item_id, entity: rec.kind, action: 'portal_sync', summary: `${rec.kind}: changed on the portal`,
      before: { [`${rec.kind}_id`]: row.id, ...Object.fromEntries(Object.keys(changes).map((k) => [k, local[k]])) }, after: { [`${rec.kind}_id`]: row.id, ...changes },
    })
  }
  const whole = row.revision === rec.captured_revision
  const captured = whole ? { ...rec.captured, ...local, ...changes } : { ...rec.captured, ...changes }
  await tx.query('UPDATE portal_records SET portal_revision = $3, base = $4, captured = $5, captured_revision = $6 WHERE workspace_id = $1 AND record_key = $2',
    [ws, rec.record_key, p.revision, JSON.stringify(incoming), JSON.stringify(captured), whole ? revision : rec.captured_revision])
  return Object.keys(changes).length > 0 ? APPLY.applied : APPLY.current
}
