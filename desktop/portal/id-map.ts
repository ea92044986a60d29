// Canonical ids: once the portal names a record, the desktop's row takes the
// portal's id (workspace's remap functions: references follow through ON
// UPDATE CASCADE or are rewritten there), and the old id is kept in
// portal_id_map so that everything that still holds it (edges, comments,
// assignment views, webhook history, tool results, saved selections) keeps resolving.
import type { Sql } from '../../core/index.ts'
import { adoptRecordId, foldCatalogueEntry, remapCatalogueId, remapItemId, remapTaskIds } from '../../workspace/index.ts'

export const MAP_KINDS = { item: 'item', board: 'board', status: 'status', type: 'type', label: 'label', comment: 'comment', edge: 'edge' } as const
export type MapKind = (typeof MAP_KINDS)[keyof typeof MAP_KINDS]

async function remember(tx: Sql, ws: string, kind: MapKind, oldId: string, canonical: string): Promise<void> {
  await tx.query(
    `INSERT INTO portal_id_map (workspace_id, kind, old_id, canonical_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (workspace_id, old_id) DO UPDATE SET canonical_id = EXCLUDED.canonical_id`, [ws, kind, oldId, canonical])
  // An id mapped before to this old one now leads to the canonical one directly.
  await tx.query('UPDATE portal_id_map SET canonical_id = $3 WHERE workspace_id = $1 AND canonical_id = $2', [ws, oldId, canonical])
}

/** Rewrites a record's id to the portal's canonical id, inside the caller's transaction. */
export async function adoptId(tx: Sql, ws: string, kind: MapKind, oldId: string, canonical: string): Promise<void> {
  if (oldId === canonical) return
  if (kind === 'item') {
    await remapItemId(tx, ws, oldId, canonical)
    await tx.query('UPDATE portal_items SET local_id = $3 WHERE workspace_id = $1 AND local_id = $2', [ws, oldId, canonical])
  } else if (kind === 'comment' || kind === 'edge') {
    await adoptRecordId(tx, ws, kind, oldId, canonical)
  } else {
    await remapCatalogueId(tx, ws, kind, oldId, canonical)
  }
  // Catalogue ids appear in queued and agreed task fields; item, comment and edge ids do not.
  if (kind !== 'item' && kind !== 'comment' && kind !== 'edge') {
    await rewriteQueued(tx, ws, oldId, canonical)
    await tx.query('UPDATE portal_catalogue_base SET id = $3 WHERE workspace_id = $1 AND id = $2', [ws, oldId, canonical])
  }
  await remember(tx, ws, kind, oldId, canonical)
}

/**
 * Folds a duplicate into the record that already holds the canonical id (a
 * desktop that connected before its first project request made a second
 * default board and type): references move to the canonical record, the
 * duplicate goes, and its id keeps resolving through the map. A board's
 * statuses fold into the canonical board's statuses of the same name (else of
 * the same category); one without either moves over.
 */
export async function foldId(tx: Sql, ws: string, kind: Exclude<MapKind, 'item' | 'comment' | 'edge'>, dupId: string, canonical: string): Promise<void> {
  if (dupId === canonical) return
  await foldCatalogueEntry(tx, ws, kind, dupId, canonical, (dup, into) => foldId(tx, ws, 'status', dup, into))
  await rewriteQueued(tx, ws, dupId, canonical)
  await tx.query('DELETE FROM portal_catalogue_base WHERE workspace_id = $1 AND id = $2', [ws, dupId])
  await remember(tx, ws, kind, dupId, canonical)
}

/** The captured (already queued) and agreed states of synced items name catalogue ids (and deliverables) too. */
export async function rewriteQueued(tx: Sql, ws: string, oldId: string, canonical: string): Promise<void> {
  await tx.query(
    `UPDATE portal_items SET captured = replace(captured::text, $2, $3)::jsonb, base = replace(base::text, $2, $3)::jsonb
     WHERE workspace_id = $1 AND (captured::text LIKE '%' || $2 || '%' OR base::text LIKE '%' || $2 || '%')`,
    [ws, oldId, canonical])
  await tx.query(
    `UPDATE portal_outbox SET payload = replace(payload::text, $2, $3)::jsonb WHERE workspace_id = $1 AND state <> 'done' AND payload::text LIKE '%' || $2 || '%'`,
    [ws, oldId, canonical])
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Fields of a desktop project request that name records (path, query, body). */
const REF_FIELDS = ['id', 'item_id', 'comment_id', 'from_id', 'to_id', 'board_id', 'status_id', 'type_id', 'label_ids', 'type_ids', 'replacement_id', 'deliverable',
  'deliverable_id', 'target_board_id', 'target_status_id'] as const

/**
 * Rewrites every old id a desktop project request names (path id, filters, a
 * saved selection's comma-separated type or label ids, body references) to
 * the current canonical one, in place. One query, only when ids are present;
 * uuids never repeat across workspaces, so the map is read by id alone.
 */
export async function rewriteOldIds(db: Sql, parts: (Record<string, unknown> | undefined)[]): Promise<void> {
  const found = new Set<string>()
  const visit = (v: unknown, each: (s: string) => void) => {
    if (typeof v === 'string') for (const s of v.split(',')) if (UUID.test(s)) each(s.toLowerCase())
    if (Array.isArray(v)) for (const s of v) if (typeof s === 'string' && UUID.test(s)) each(s.toLowerCase())
  }
  for (const p of parts) for (const f of REF_FIELDS) if (p !== undefined && p !== null && typeof p === 'object') visit(p[f], (s) => found.add(s))
  if (found.size === 0) return
  const r = await db.query<{ old_id: string; canonical_id: string }>('SELECT old_id, canonical_id FROM portal_id_map WHERE old_id = ANY($1::uuid[])', [[...found]])
  if (r.rows.length === 0) return
  const m = new Map(r.rows.map((x) => [x.old_id, x.canonical_id]))
  const map = (s: string) => (UUID.test(s) ? m.get(s.toLowerCase()) ?? s : s)
  for (const p of parts) {
    if (p === undefined || p === null || typeof p !== 'object') continue
    for (const f of REF_FIELDS) {
      const v = p[f]
      if (typeof v === 'string') p[f] = v.split(',').map(map).join(',')
      else if (Array.isArray(v)) p[f] = v.map((s) => (typeof s === 'string' ? map(s) : s))
    }
  }
}

export interface AdoptedTask {
  itemKey: string
  oldId: string
  id: string
  number: number | null
  revision: number
  /** The portal's fields at that revision (the agreed version). */
  base: Record<string, unknown>
}

/**
 * adoptId and the rest of a creation's adoption (number, origin, agreed
 * version) for a batch of acknowledged task creations, inside the caller's
 * transaction: one statement per table for the whole batch instead of one per
 * task (the embedded PostgreSQL's cost is mostly per statement).
 */
export async function adoptTaskIds(tx: Sql, ws: string, tasks: readonly AdoptedTask[]): Promise<void> {
  if (tasks.length === 0) return
  const olds = tasks.map((t) => t.oldId)
  const ids = tasks.map((t) => t.id)
  await remapTaskIds(tx, ws, olds, ids, tasks.map((t) => t.number))
  await tx.query(
    `UPDATE portal_items p SET local_id = v.id, portal_id = v.id, portal_revision = v.revision, base = v.base::jsonb
     FROM unnest($2::uuid[], $3::uuid[], $4::integer[], $5::text[]) AS v(item_key, id, revision, base) WHERE p.workspace_id = $1 AND p.item_key = v.item_key`,
    [ws, tasks.map((t) => t.itemKey), ids, tasks.map((t) => t.revision), tasks.map((t) => JSON.stringify(t.base))])
  await tx.query(
    `INSERT INTO portal_id_map (workspace_id, kind, old_id, canonical_id) SELECT $1, 'item', v.old, v.id FROM unnest($2::uuid[], $3::uuid[]) AS v(old, id)
     WHERE v.old <> v.id ON CONFLICT (workspace_id, old_id) DO UPDATE SET canonical_id = EXCLUDED.canonical_id`, [ws, olds, ids])
  // An id mapped before to one of these old ones now leads to its canonical one directly.
  await tx.query(
    `UPDATE portal_id_map m SET canonical_id = v.id FROM unnest($2::uuid[], $3::uuid[]) AS v(old, id) WHERE m.workspace_id = $1 AND m.canonical_id = v.old`,
    [ws, olds, ids])
}
