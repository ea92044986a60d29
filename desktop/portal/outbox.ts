// The outbox: local task and note changes become revisioned operations, each with its
// own idempotency key, kept until the portal acknowledged them. Capture
// compares each task with what the outbox already holds for it (`captured`),
// so any number of offline edits become one create plus the later differences.
import type { Database, Sql } from '../../core/index.ts'
import { itemHeadlines, itemsChangedSince } from '../../workspace/index.ts'
import { changedFields, itemFieldsOf } from './task-fields.ts'

export const OUTBOX_STATES = { pending: 'pending', done: 'done', conflict: 'conflict', refused: 'refused', dropped: 'dropped' } as const
export type OutboxState = (typeof OUTBOX_STATES)[keyof typeof OUTBOX_STATES]
/** item: a task or a note; deliverable: pushed before them (a task links to it); comment, edge: after them. */
export type OpKind = 'item' | 'deliverable' | 'comment' | 'edge'

export interface OutboxOp {
  seq: string
  item_key: string
  /** item: a task or note (portal_items); comment or edge: portal_records. */
  kind: OpKind
  op: 'create' | 'update'
  payload: Record<string, unknown>
  idempotency_key: string
  state: OutboxState
  /** Retried by the owner: fields changed on both sides are sent anyway (the desktop's values win). */
  forced: boolean
  attempts: number
  last_error: string | null
  created_at: string
}

const OP_COLS = `seq::text AS seq, item_key, kind, op, payload, idempotency_key, state, forced, attempts, last_error,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`

/** Turns the local task changes not yet captured into outbox operations; returns how many. */
export async function capture(db: Database, ws: string): Promise<number> {
  return db.transaction(async (tx) => {
    // Not locked: an edit made after this read has a higher revision and is captured next time.
    // Service tickets (and their work tasks) stay local: the portal takes no ticket from a desktop.
    const known = (await tx.query<{ local_id: string; captured_revision: number }>(
      'SELECT local_id, captured_revision FROM portal_items WHERE workspace_id = $1', [ws])).rows
    const changed = await itemsChangedSince(tx, ws, known.map((k) => k.local_id), known.map((k) => k.captured_revision))
    // What was captured of the changed items already known to the sync (only theirs: captures are large).
    const held = new Set(known.map((k) => k.local_id))
    const again = changed.flatMap((x) => (held.has(x.id) ? [x.id] : []))
    const prior = again.length === 0 ? [] : (await tx.query<{ local_id: string; item_key: string; captured: Record<string, unknown> }>(
      'SELECT local_id, item_key, captured FROM portal_items WHERE workspace_id = $1 AND local_id = ANY($2::uuid[])', [ws, again])).rows
    const byId = new Map(prior.map((p) => [p.local_id, p]))
    // Written in one statement per table at the end (a backlog of thousands of items is thousands of rows, not statements).
    const items: { key: string; captured: string; revision: number; type: string; known: boolean }[] = []
    const ops: NewOp[] = []
    for (const x of changed) {
      const p = byId.get(x.id)
      const row = { ...x, captured: p?.captured ?? null, item_key: p?.item_key ?? null }
      const now = itemFieldsOf(row.item_type, row)
      const kind = row.item_type === 'deliverable' ? 'deliverable' : 'item'
      if (row.item_key === null) {
        // A creation carries the fields the portal's create takes; the work state follows as actions (an update).
        const { archived: _a, deleted: _d, state: _s, blocked_reason: _b, ...create } = now
        const created = row.item_type === 'note' ? { ...now, archived: false, deleted: false } : { ...now, archived: false, deleted: false, state: 'open', blocked_reason: '' }
        items.push({ key: row.id, captured: JSON.stringify(now), revision: row.revision, type: row.item_type, known: false })
        ops.push({ itemKey: row.id, op: 'create', payload: create, kind })
        const rest = changedFields(created, now)
        if (Object.keys(rest).length > 0) ops.push({ itemKey: row.id, op: 'update', payload: rest, kind })
        continue
      }
      // A task captured before the deliverable link was synced holds none: no link is no change.
      const diff = changedFields(row.item_type === 'task' ? { deliverable: null, ...row.captured } : row.captured ?? {}, now)
      // Blocking needs its reason, even one equal to an earlier block's.
      if (diff.state === 'blocked') diff.blocked_reason = now.blocked_reason
      items.push({ key: row.item_key, captured: JSON.stringify(now), revision: row.revision, type: row.item_type, known: true })
      if (Object.keys(diff).length > 0) ops.push({ itemKey: row.item_key, op: 'update', payload: diff, kind })
    }
    const fresh = items.filter((x) => !x.known)
    const recaptured = items.filter((x) => x.known)
    if (fresh.length > 0) {
      await tx.query(
        `INSERT INTO portal_items (workspace_id, item_key, local_id, captured, captured_revision, item_type)
         SELECT $1, v.key, v.key, v.captured::jsonb, v.revision, v.type FROM unnest($2::uuid[], $3::text[], $4::integer[], $5::text[]) AS v(key, captured, revision, type)`,
        [ws, fresh.map((x) => x.key), fresh.map((x) => x.captured), fresh.map((x) => x.revision), fresh.map((x) => x.type)])
    }
    if (recaptured.length > 0) {
      await tx.query(
        `UPDATE portal_items p SET captured = v.captured::jsonb, captured_revision = v.revision
         FROM unnest($2::uuid[], $3::text[], $4::integer[]) AS v(key, captured, revision) WHERE p.workspace_id = $1 AND p.item_key = v.key`,
        [ws, recaptured.map((x) => x.key), recaptured.map((x) => x.captured), recaptured.map((x) => x.revision)])
    }
    await enqueueAll(tx, ws, ops)
    return ops.length
  })
}

export interface NewOp {
  itemKey: string
  op: 'create' | 'update'
  payload: Record<string, unknown>
  kind: OpKind
}

export async function enqueue(tx: Sql, ws: string, itemKey: string, op: 'create' | 'update', payload: Record<string, unknown>, kind: OpKind = 'item'): Promise<void> {
  await enqueueAll(tx, ws, [{ itemKey, op, payload, kind }])
}

/** Operations in one statement, their sequence numbers in the given order, each with a fresh idempotency key. */
export async function enqueueAll(tx: Sql, ws: string, ops: readonly NewOp[]): Promise<void> {
  if (ops.length === 0) return
  await tx.query(
    `INSERT INTO portal_outbox (workspace_id, item_key, op, payload, idempotency_key, kind)
     SELECT $1, v.item_key, v.op, v.payload::jsonb, gen_random_uuid(), v.kind
     FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS v(item_key, op, payload, kind, ord) ORDER BY v.ord`,
    [ws, ops.map((o) => o.itemKey), ops.map((o) => o.op), ops.map((o) => JSON.stringify(o.payload)), ops.map((o) => o.kind)])
}

/**
 * The next operations to send: the oldest pending one of each task, up to
 * `limit`, oldest first. A task's operations go one at a time in their order;
 * different tasks are independent (catalogues were settled before), so their
 * operations may be in flight together.
 */
export async function nextPending(db: Sql, ws: string, limit: number, kinds: readonly OpKind[] = ['item']): Promise<OutboxOp[]> {
  const r = await db.query<OutboxOp>(
    `SELECT * FROM (SELECT DISTINCT ON (item_key) ${OP_COLS} FROM portal_outbox WHERE workspace_id = $1 AND state = 'pending' AND kind = ANY($3) ORDER BY item_key, seq) o
     ORDER BY seq::bigint LIMIT $2`, [ws, limit, kinds])
  return r.rows
}

export async function settle(db: Sql, ws: string, seq: string, state: OutboxState, error: string | null = null): Promise<void> {
  await db.query('UPDATE portal_outbox SET state = $3, last_error = $4, settled_at = now() WHERE workspace_id = $1 AND seq = $2::bigint',
    [ws, seq, state, error])
}

export async function noteAttempt(db: Sql, ws: string, seq: string, error: string): Promise<void> {
  await db.query('UPDATE portal_outbox SET attempts = attempts + 1, last_error = $3 WHERE workspace_id = $1 AND seq = $2::bigint', [ws, seq, error])
}

export async function hasPending(db: Sql, ws: string, itemKey: string): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM portal_outbox WHERE workspace_id = $1 AND item_key = $2 AND state = 'pending' LIMIT 1`, [ws, itemKey])
  return r.rows.length > 0
}

/**
 * Operations that need the owner: conflicts (409) and refusals, with the item they belong to (its number and title);
 * a comment's or an edge's operation names its task or from item that way, with `record_id` the comment or edge.
 */
export type AttentionOp = OutboxOp & { item_id: string; portal_id: string | null; item_type: string; number: number | null; title: string | null; record_id: string | null }

export async function listAttention(db: Sql, ws: string): Promise<AttentionOp[]> {
  const r = await db.query<Omit<AttentionOp, 'number' | 'title'>>(
    `SELECT o.seq::text AS seq, o.item_key, o.kind, o.op, o.payload, o.idempotency_key, o.state, o.forced, o.attempts, o.last_error,
       to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
       coalesce(p.local_id, pi.local_id) AS item_id, coalesce(p.portal_id, r.portal_id) AS portal_id,
       coalesce(p.item_type, o.kind) AS item_type,
       r.local_id AS record_id
     FROM portal_outbox o
     LEFT JOIN portal_items p ON o.kind IN ('item', 'deliverable') AND p.workspace_id = o.workspace_id AND p.item_key = o.item_key
     LEFT JOIN portal_records r ON o.kind IN ('comment', 'edge') AND r.workspace_id = o.workspace_id AND r.record_key = o.item_key
     LEFT JOIN portal_items pi ON pi.workspace_id = o.workspace_id AND (pi.item_key = (r.captured->>'item_key')::uuid)
     WHERE o.workspace_id = $1 AND o.state IN ('conflict', 'refused') AND (p.item_key IS NOT NULL OR r.record_key IS NOT NULL) ORDER BY o.seq`, [ws])
  // The item's number and title are the project store's.
  const items = await itemHeadlines(db, ws, [...new Set(r.rows.flatMap((o) => (o.item_id === null ? [] : [o.item_id])))])
  return r.rows.map((o) => {
    const i = o.item_id === null ? undefined : items.get(o.item_id)
    // The keys in the order the one joined statement gave them.
    const { record_id, ...head } = o
    return { ...head, number: i?.number ?? null, title: i?.title ?? null, record_id }
  })
}

export async function counts(db: Sql, ws: string): Promise<{ pending: number; conflicts: number }> {
  const r = await db.query<{ pending: number; conflicts: number }>(
    `SELECT count(*) FILTER (WHERE state = 'pending')::int AS pending, count(*) FILTER (WHERE state IN ('conflict', 'refused'))::int AS conflicts
     FROM portal_outbox WHERE workspace_id = $1`, [ws])
  return r.rows[0] ?? { pending: 0, conflicts: 0 }
}

/**
 * The owner's decision on a conflict: `retry` queues the operation again (a
 * fresh idempotency key, sent against the portal's current revision, forced:
 * the local values win on both sides); `drop` gives it up (the portal's values stay).
 */
export async function resolveOp(db: Sql, ws: string, seq: string, action: 'retry' | 'drop'): Promise<boolean> {
  const r = action === 'retry'
    ? await db.query(`UPDATE portal_outbox SET state = 'pending', forced = true, idempotency_key = gen_random_uuid(), last_error = NULL, settled_at = NULL
        WHERE workspace_id = $1 AND seq = $2::bigint AND state IN ('conflict', 'refused') RETURNING 1`, [ws, seq])
    : await db.query(`UPDATE portal_outbox SET state = 'dropped', settled_at = now()
        WHERE workspace_id = $1 AND seq = $2::bigint AND state IN ('conflict', 'refused') RETURNING 1`, [ws, seq])
  return r.rows.length > 0
}

/** Keeps only the fields of an operation still in conflict (the others reached the portal). */
export async function narrowOp(db: Sql, ws: string, seq: string, payload: Record<string, unknown>): Promise<void> {
  await db.query('UPDATE portal_outbox SET payload = $3 WHERE workspace_id = $1 AND seq = $2::bigint', [ws, seq, JSON.stringify(payload)])
}

/** The fields of a record's pending operations other than `sending` (the one whose answer is being merged). */
export async function unsentFields(db: Sql, ws: string, itemKey: string, sending: string | null): Promise<Set<string>> {
  const queued = await db.query<{ payload: Record<string, unknown> }>(
    `SELECT payload FROM portal_outbox WHERE workspace_id = $1 AND item_key = $2 AND state = 'pending' AND seq::text IS DISTINCT FROM $3`, [ws, itemKey, sending])
  return new Set(queued.rows.flatMap((q) => Object.keys(q.payload)))
}
