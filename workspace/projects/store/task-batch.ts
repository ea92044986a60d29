// Task creations in a batch (the cloud's `POST …/tasks/batch`): each item is
// the single creation (createTask: its own idempotency key, a replay answers
// 200 with the first answer, a refusal refuses only its item), but the batch
// runs a fixed number of statements instead of a dozen per item: the embedded
// PostgreSQL's cost is per statement. One claim of every key, one read per
// kind of reference, one number range, one multi-row insert of the tasks, one
// of their activity entries, one of the assignment events (and one of their
// webhook deliveries) when tasks are assigned, one write of the answers (on the
// embedded database, which runs one transaction at a time, the claims are a read
// of the keys and the answers' insert is the claim: one row write per key). Everything commits
// together: a failure of the server itself (or a crash) leaves none of them.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { IdempotencyConflictError } from '../../errors.ts'
import { recordActivities } from './activity.ts'
import type { ProjectCtx } from './context.ts'
import { ensureProject } from './defaults.ts'
import { PROJECT_EVENT_TYPES, recordEvents } from './events.ts'
import { requestHash, type Outcome } from './idempotency.ts'
import { isoText, toTask, type ItemRow, type TaskView } from './items.ts'
import {
  Problems, boardPlacement, checkDates, deliverableProblem, statusProblem, taxonomyProblems, unique, type TaxonomyRef,
} from './refs.ts'
import { CATEGORY_STATE, TASK_CREATE_SCOPE, creationEntry, type TaskCreateInput } from './tasks.ts'

/** One item's result: its creation (or replay), or the error that refused it alone. */
export type BatchItemResult = { ok: Outcome<TaskView> } | { error: Error }

/**
 * Creates the tasks of a batch in one transaction; results in the items' order.
 * `loc` locates the items (`['body', 'items']`: an item's problems are at `[...loc, i, field]`).
 * Throws (and writes nothing) on anything but an item's own refusal.
 */
export async function createTasks(ctx: ProjectCtx, inputs: readonly TaskCreateInput[], loc: (string | number)[] = ['body', 'items']): Promise<BatchItemResult[]> {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  return ctx.db.transaction(async (tx) => {
    const out: BatchItemResult[] = []
    // Runs of distinct keys: a key repeated in the batch is answered after the item that used it first
    // is written (a replay of it, or a conflict), exactly as one creation after the other.
    let start = 0
    while (start < inputs.length) {
      const keys = new Set<string>()
      let end = start
      while (end < inputs.length && !keys.has((inputs[end] as TaskCreateInput).idempotency_key)) keys.add((inputs[end++] as TaskCreateInput).idempotency_key)
      out.push(...await createRun(tx, ctx, defaultBoard, inputs.slice(start, end), start, loc))
      start = end
    }
    return out
  })
}

interface Pending {
  i: number
  key: string
  hash: string
  input: Omit<TaskCreateInput, 'idempotency_key'>
}

/** Items with distinct keys: claims, replays, checks, then the writes of the valid ones. */
async function createRun(tx: Sql, ctx: ProjectCtx, defaultBoard: string, items: readonly TaskCreateInput[], offset: number, loc: (string | number)[]): Promise<BatchItemResult[]> {
  const ws = ctx.workspaceId
  const out: BatchItemResult[] = new Array(items.length)
  const all: Pending[] = items.map(({ idempotency_key: key, ...input }, j) => ({ i: j, key, input, hash: requestHash(TASK_CREATE_SCOPE, input) }))
  // An embedded database runs one transaction at a time: no key can be taken between a read of the keys
  // and the insert of the answers, so each key costs one row write (its claim with its answer) instead of two.
  const claimFirst = !ctx.db.embedded
  let fresh: Pending[]
  if (claimFirst) {
    // On a server, a concurrent holder of a key makes this wait for its commit (as one creation does).
    const claimed = new Set((await tx.query<{ key: string }>(
      `INSERT INTO project_idempotency (workspace_id, key, scope, request_hash) SELECT $1, v.key, $2, v.hash FROM unnest($3::text[], $4::text[]) AS v(key, hash)
       ON CONFLICT (workspace_id, key) DO NOTHING RETURNING key`, [ws, TASK_CREATE_SCOPE, all.map((p) => p.key), all.map((p) => p.hash)])).rows.map((r) => r.key))
    fresh = all.filter((p) => claimed.has(p.key))
    // A key neither claimed nor found (its holder gone in between) is refused, as one creation refuses it.
    for (const p of await answerReplays(tx, ws, all.filter((p) => !claimed.has(p.key)), out)) out[p.i] = { error: new IdempotencyConflictError() }
  } else {
    fresh = await answerReplays(tx, ws, all, out)
  }
  const valid = await check(tx, ws, defaultBoard, fresh, offset, loc, out)
  const refused = fresh.filter((p) => out[p.i] !== undefined).map((p) => p.key)
  // A refused item leaves no claim behind (one by one, its transaction rolled back): its retry runs again.
  if (claimFirst && refused.length > 0) await tx.query('DELETE FROM project_idempotency WHERE workspace_id = $1 AND key = ANY($2::text[])', [ws, refused])
  if (valid.length === 0) return out
  const rows = await insertTasks(tx, ctx, valid)
  await recordActivities(tx, ws, ctx.actor, rows.map(creationEntry))
  // Creating an assigned task counts as an assignment change.
  await recordEvents(tx, ws, ctx.actor, PROJECT_EVENT_TYPES.assignmentChanged,
    rows.filter((row) => row.assignee !== null).map((row) => ({ task: row, previousAssignee: null, assignee: row.assignee })))
  const bodies = rows.map(toTask)
  const keys = valid.map((v) => v.p.key)
  const answers = bodies.map((b) => JSON.stringify(b))
  if (claimFirst) {
    await tx.query(
      `UPDATE project_idempotency p SET status = 201, response = v.response FROM unnest($2::text[], $3::text[]) AS v(key, response)
       WHERE p.workspace_id = $1 AND p.key = v.key`, [ws, keys, answers])
  } else {
    // No ON CONFLICT: a key taken after all would fail the batch, never answer twice.
    await tx.query(
      `INSERT INTO project_idempotency (workspace_id, key, scope, request_hash, status, response)
       SELECT $1, v.key, $2, v.hash, 201, v.response FROM unnest($3::text[], $4::text[], $5::text[]) AS v(key, hash, response)`,
      [ws, TASK_CREATE_SCOPE, keys, valid.map((v) => v.p.hash), answers])
  }
  valid.forEach((v, k) => (out[v.p.i] = { ok: { status: 201, body: bodies[k] as TaskView, replay: false } }))
  return out
}

/**
 * Keys already used: the first answer again when the request is the same, else a conflict (createTask's idempotent()).
 * Returns the items whose keys are new.
 */
async function answerReplays(tx: Sql, ws: string, items: readonly Pending[], out: BatchItemResult[]): Promise<Pending[]> {
  if (items.length === 0) return []
  const r = await tx.query<{ key: string; request_hash: string; response: string | null }>(
    'SELECT key, request_hash, response FROM project_idempotency WHERE workspace_id = $1 AND key = ANY($2::text[])', [ws, items.map((p) => p.key)])
  const prior = new Map(r.rows.map((x) => [x.key, x]))
  const fresh: Pending[] = []
  for (const p of items) {
    const x = prior.get(p.key)
    if (x === undefined) fresh.push(p)
    else out[p.i] = x.request_hash !== p.hash || x.response === null
      ? { error: new IdempotencyConflictError() }
      : { ok: { status: 200, body: JSON.parse(x.response) as TaskView, replay: true } }
  }
  return fresh
}

interface Valid {
  p: Pending
  boardId: string
  statusId: string | null
  typeId: string | null
  labelIds: string[]
  state: string
}

/**
 * insertTask's checks for every item, on references read once for all of them
 * (boards, their statuses, type and labels with the defaults, deliverables):
 * the same refusals in the same order. A refused item's error goes to `out`.
 */
async function check(tx: Sql, ws: string, defaultBoard: string, items: readonly Pending[], offset: number, loc: (string | number)[], out: BatchItemResult[]): Promise<Valid[]> {
  if (items.length === 0) return []
  const lower = (s: string) => s.toLowerCase()
  const boardIds = [...new Set(items.map((p) => lower(p.input.board_id ?? defaultBoard)))]
  const boards = new Map((await tx.query<{ id: string; archived: boolean }>(
    'SELECT id, archived_at IS NOT NULL AS archived FROM project_boards WHERE workspace_id = $1 AND id = ANY($2::uuid[])', [ws, boardIds])).rows.map((b) => [b.id, b]))
  const statuses = new Map((await tx.query<{ id: string; board_id: string; is_default: boolean; retired: boolean; category: string }>(
    'SELECT id, board_id, is_default, retired_at IS NOT NULL AS retired, category FROM project_statuses WHERE board_id = ANY($1::uuid[])', [[...boards.keys()]],
  )).rows.map((s) => [`${s.board_id}/${s.id}`, s]))
  const defaultStatus = new Map([...statuses.values()].filter((s) => s.is_default && !s.retired).map((s) => [s.board_id, s.id]))
  const named = items.flatMap((p) => [...(p.input.type_id == null ? [] : [p.input.type_id]), ...(p.input.label_ids ?? [])])
  const taxonomy = await tx.query<TaxonomyRef & { is_default: boolean }>(
    `SELECT id, kind, archived_at IS NOT NULL AS archived, is_default AND archived_at IS NULL AS is_default FROM project_taxonomy
     WHERE workspace_id = $1 AND (id = ANY($2::uuid[]) OR (is_default AND archived_at IS NULL)) ORDER BY position, id`, [ws, named])
  const found = new Map(taxonomy.rows.map((x) => [x.id, x]))
  const defaultType = taxonomy.rows.find((x) => x.kind === 'type' && x.is_default)?.id ?? null
  const defaultLabels = taxonomy.rows.filter((x) => x.kind === 'label' && x.is_default).map((x) => x.id)
  const named2 = items.flatMap((p) => (p.input.deliverable == null ? [] : [p.input.deliverable]))
  const deliverables = named2.length === 0 ? new Map<string, { deleted: boolean }>() : new Map((await tx.query<{ id: string; deleted: boolean }>(
    `SELECT id, deleted_at IS NOT NULL AS deleted FROM project_items WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND item_type = 'deliverable'`,
    [ws, named2])).rows.map((d) => [d.id, d]))
  const valid: Valid[] = []
  for (const p of items) {
    const at = [...loc, offset + p.i]
    const input = p.input
    try {
      const boardId = boardPlacement(boards.get(lower(input.board_id ?? defaultBoard)), input.board_id ?? defaultBoard, [...at, 'board_id'])
      const problems = new Problems()
      let statusId: string | null
      if (input.status_id == null) statusId = defaultStatus.get(lower(boardId)) ?? null
      else {
        statusId = input.status_id
        statusProblem(statuses.get(`${lower(boardId)}/${lower(statusId)}`), statusId, [...at, 'status_id'], problems)
      }
      const labels = input.label_ids == null ? undefined : unique(input.label_ids)
      if (input.type_id != null || (labels?.length ?? 0) > 0) taxonomyProblems(found, input.type_id, labels, { type_id: null, label_ids: [] }, at, problems)
      if (input.deliverable != null) deliverableProblem(deliverables.get(lower(input.deliverable)), input.deliverable, [...at, 'deliverable'], problems)
      checkDates(input.starts_on, input.due_on, at, problems)
      problems.throwIfAny()
      const category = statusId === null ? undefined : statuses.get(`${lower(boardId)}/${lower(statusId)}`)?.category
      valid.push({
        p, boardId, statusId, typeId: input.type_id === undefined ? defaultType : input.type_id, labelIds: labels ?? defaultLabels,
        state: CATEGORY_STATE[category ?? 'todo'] ?? 'open',
      })
    } catch (err) {
      // Only a refusal of the item itself (a 4xx) is its own result; anything else fails the batch.
      const status = (err as { statusCode?: number }).statusCode
      if (status === undefined || status >= 500) throw err
      out[p.i] = { error: err as Error }
    }
  }
  return valid
}

/** A uuid as the database gives it back (a request may spell one in capitals). */
const uuidText = (s: string | null | undefined): string | null => (s == null ? null : s.toLowerCase())

/**
 * The valid items' numbers (one range) and rows (one insert), in the items' order.
 * The rows are built here, as the database would return them, and each brings its
 * list document (projects migration 6 builds it only for an insert without one):
 * JSON.stringify(toTask(row)) is the text the trigger writes, the same keys in the
 * same order, so the insert runs no per-row trigger and returns only the seq.
 */
async function insertTasks(tx: Sql, ctx: ProjectCtx, valid: readonly Valid[]): Promise<ItemRow[]> {
  const ws = ctx.workspaceId
  // The counter row stays locked until commit, so numbers have no gaps; a shared workspace numbers nothing itself.
  // now() is the transaction's time, the rows' default, in the views' format (UTC, milliseconds).
  const n = await tx.query<{ first: number | null; now: string }>(
    `UPDATE project_workspaces SET next_number = next_number + CASE WHEN portal_shared THEN 0 ELSE $2::int END WHERE workspace_id = $1
     RETURNING CASE WHEN portal_shared THEN NULL ELSE next_number - $2::int END AS first,
       ${isoText('now()', 'now')}`, [ws, valid.length])
  const { first, now } = n.rows[0] as { first: number | null; now: string }
  const rows: ItemRow[] = valid.map(({ p: { input }, boardId, statusId, typeId, labelIds, state }, k) => ({
    id: randomUUID(), seq: '', workspace_id: uuidText(ws) as string, item_type: 'task', kind: input.source_ticket == null ? 'task' : 'service_ticket',
    board_id: uuidText(boardId) as string, number: first === null ? null : first + k, title: input.title, description: input.description ?? '',
    acceptance: input.acceptance ?? '', body: '', color: null, visibility: null, type_id: uuidText(typeId), label_ids: labelIds.map((x) => x.toLowerCase()),
    status_id: uuidText(statusId), service: uuidText(input.service), deliverable: uuidText(input.deliverable), source_ticket: uuidText(input.source_ticket),
    priority: input.priority ?? 'normal', assignee: input.assignee ?? null, reviewer: input.reviewer ?? null, owner: null,
    starts_on: input.starts_on ?? null, due_on: input.due_on ?? null, state: state as ItemRow['state'], blocked_reason: '', origin: 'local',
    revision: 1, assignment_revision: 1, created_by: ctx.actor.userId, archived_at: null, deleted_at: null, created_at: now, updated_at: now,
  }))
  const docs = rows.map((x, ord) => ({
    ord, id: x.id, kind: x.kind, board_id: x.board_id, number: x.number, title: x.title, description: x.description, acceptance: x.acceptance,
    type_id: x.type_id, label_ids: x.label_ids, status_id: x.status_id, service: x.service, deliverable: x.deliverable, source_ticket: x.source_ticket,
    priority: x.priority, assignee: x.assignee, reviewer: x.reviewer, starts_on: x.starts_on, due_on: x.due_on, state: x.state, list_doc: JSON.stringify(toTask(x)),
  }))
  const r = await tx.query<{ id: string; seq: string }>(
    `INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, number, title, description, acceptance, type_id, label_ids,
       status_id, service, deliverable, source_ticket, priority, assignee, reviewer, starts_on, due_on, state, created_by, created_at, updated_at, list_doc)
     SELECT v.id, $1, 'task', v.kind, v.board_id, v.number, v.title, v.description, v.acceptance, v.type_id, v.label_ids,
       v.status_id, v.service, v.deliverable, v.source_ticket, v.priority, v.assignee, v.reviewer, v.starts_on, v.due_on, v.state, $3::integer,
       $4::timestamptz, $4::timestamptz, v.list_doc
     FROM jsonb_to_recordset($2::jsonb) AS v(ord integer, id uuid, kind text, board_id uuid, number integer, title text, description text,
       acceptance text, type_id uuid, label_ids uuid[], status_id uuid, service uuid, deliverable uuid, source_ticket uuid, priority text,
       assignee integer, reviewer integer, starts_on date, due_on date, state text, list_doc text)
     ORDER BY v.ord
     RETURNING id, seq::text AS seq`, [ws, JSON.stringify(docs), ctx.actor.userId, now])
  const seqs = new Map(r.rows.map((x) => [x.id, x.seq]))
  for (const row of rows) row.seq = seqs.get(row.id) as string
  return rows
}
