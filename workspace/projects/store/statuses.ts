// Board statuses (BoardConfigure): one catalogue per board, guarded by a
// 64-character revision token that is swapped atomically on every change
// (UPDATE ... WHERE token = observed), which also serializes changes per board.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { CatalogueRuleError, DuplicateError, StaleRevisionError } from '../../errors.ts'
import { LIMITS } from '../schemas/fields.ts'
import { recordActivity } from './activity.ts'
import { actorJson, type ProjectCtx } from './context.ts'
import { ensureProject, newCatalogueToken } from './defaults.ts'
import { Problems, REF_TYPES, invalid } from './refs.ts'

export interface StatusRow {
  id: string
  board_id: string
  name: string
  category: string
  color: string
  position: number
  is_default: boolean
  retired_at: Date | null
  replacement_id: string | null
}

export function toStatus(s: StatusRow) {
  return {
    id: s.id, board_id: s.board_id, name: s.name, category: s.category, color: s.color, position: s.position,
    is_default: s.is_default, retired: s.retired_at !== null, retired_at: s.retired_at === null ? null : new Date(s.retired_at).toISOString(),
    replacement_id: s.replacement_id,
  }
}

export interface StatusCatalogue {
  board_id: string
  revision: string
  items: ReturnType<typeof toStatus>[]
}

async function boardToken(db: Sql, workspaceId: string, boardId: string): Promise<string> {
  const r = await db.query<{ statuses_token: string }>('SELECT statuses_token FROM project_boards WHERE workspace_id = $1 AND id = $2', [workspaceId, boardId])
  const b = r.rows[0]
  if (b === undefined) throw invalid(['query', 'board_id'], 'Board not found in this workspace', REF_TYPES.notFound, boardId)
  return b.statuses_token
}

/** The board's statuses in order: active ones, or with `retired` only the retired ones. */
export async function readStatuses(db: Sql, workspaceId: string, boardId: string, retired = false): Promise<StatusCatalogue> {
  const token = await boardToken(db, workspaceId, boardId)
  const r = await db.query<StatusRow>(
    `SELECT id, board_id, name, category, color, position, is_default, retired_at, replacement_id FROM project_statuses
     WHERE board_id = $1 AND retired_at IS ${retired ? 'NOT NULL' : 'NULL'} ORDER BY position, id`, [boardId])
  return { board_id: boardId, revision: token, items: r.rows.map(toStatus) }
}

export async function statusCatalogue(ctx: ProjectCtx, boardId: string | undefined, retired: boolean): Promise<StatusCatalogue> {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  return readStatuses(ctx.db, ctx.workspaceId, boardId ?? defaultBoard, retired)
}

export interface BoardConfigureInput {
  board_id?: string | null
  revision: string
  action: 'create' | 'update' | 'default' | 'reorder' | 'retire'
  status_id?: string | null
  name?: string | null
  category?: string | null
  color?: string | null
  status_ids?: string[] | null
  replacement_id?: string | null
}

function need<T>(v: T | null | undefined, field: string, action: string): T {
  if (v == null) throw invalid(['body', field], `Field required for ${action}`, 'missing')
  return v
}

/** Applies one catalogue change inside `tx` (the caller owns the transaction); returns the new catalogue. */
export async function configureStatusesIn(tx: Sql, ctx: ProjectCtx, defaultBoard: string, input: BoardConfigureInput): Promise<StatusCatalogue> {
  const ws = ctx.workspaceId
  const boardId = input.board_id ?? defaultBoard
  const exists = await tx.query('SELECT 1 FROM project_boards WHERE workspace_id = $1 AND id = $2', [ws, boardId])
  if (exists.rows.length === 0) throw invalid(['body', 'board_id'], 'Board not found in this workspace', REF_TYPES.notFound, boardId)
  const swapped = await tx.query('UPDATE project_boards SET statuses_token = $3 WHERE workspace_id = $1 AND id = $2 AND statuses_token = $4 RETURNING id',
    [ws, boardId, newCatalogueToken(), input.revision])
  if (swapped.rows.length === 0) throw new StaleRevisionError('the board\'s status catalogue changed since that revision token')
  const all = (await tx.query<StatusRow>(
    'SELECT id, board_id, name, category, color, position, is_default, retired_at, replacement_id FROM project_statuses WHERE board_id = $1 ORDER BY position, id',
    [boardId])).rows
  const active = all.filter((s) => s.retired_at === null)
  const find = (id: string, field: string): StatusRow => {
    const s = all.find((x) => x.id === id)
    if (s === undefined) throw invalid(['body', field], 'Status not found on the board', REF_TYPES.notFound, id)
    return s
  }
  const sameName = (name: string, except?: string) => active.some((s) => s.id !== except && s.name.toLowerCase() === name.toLowerCase())
  let before: Record<string, unknown> | null = null
  let after: Record<string, unknown> | null = null
  let subject = ''
  let moved = 0
  switch (input.action) {
    case 'create': {
      const name = need(input.name, 'name', 'create')
      const category = need(input.category, 'category', 'create')
      if (active.length >= LIMITS.statusesPerBoard) throw new CatalogueRuleError(`a board holds at most ${LIMITS.statusesPerBoard} statuses`)
      if (sameName(name)) throw new DuplicateError(`status ${JSON.stringify(name)} on this board`)
      const id = randomUUID()
      const position = all.reduce((m, s) => Math.max(m, s.position), -1) + 1
      await tx.query('INSERT INTO project_statuses (id, workspace_id, board_id, name, category, color, position) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [id, ws, boardId, name, category, input.color ?? 'gray', position])
      after = { status_id: id, name, category, color: input.color ?? 'gray' }
      subject = name
      break
    }
    case 'update': {
      const s = find(need(input.status_id, 'status_id', 'update'), 'status_id')
      if (s.retired_at !== null) throw new CatalogueRuleError('a retired status cannot be changed')
      const next = { name: input.name ?? s.name, category: input.category ?? s.category, color: input.color ?? s.color }
      if (next.name !== s.name && sameName(next.name, s.id)) throw new DuplicateError(`status ${JSON.stringify(next.name)} on this board`)
      await tx.query('UPDATE project_statuses SET name = $2, category = $3, color = $4, updated_at = now() WHERE id = $1', [s.id, next.name, next.category, next.color])
      before = { status_id: s.id, name: s.name, category: s.category, color: s.color }
      after = { status_id: s.id, ...next }
      subject = next.name
      break
    }
    case 'default': {
      const s = find(need(input.status_id, 'status_id', 'default'), 'status_id')
      if (s.retired_at !== null) throw new CatalogueRuleError('a retired status cannot be the default')
      const prior = active.find((x) => x.is_default)
      await tx.query('UPDATE project_statuses SET is_default = (id = $2), updated_at = now() WHERE board_id = $1 AND (is_default OR id = $2)', [boardId, s.id])
      before = { default_status_id: prior?.id ?? null }
      after = { default_status_id: s.id }
      subject = s.name
      break
    }
    case 'reorder': {
      const order = need(input.status_ids, 'status_ids', 'reorder')
      const p = new Problems()
      const want = new Set(active.map((s) => s.id))
      if (order.length !== want.size || new Set(order).size !== order.length || !order.every((id) => want.has(id))) {
        p.add(['body', 'status_ids'], 'status_ids must list every active status of the board exactly once', REF_TYPES.invalid, order)
      }
      p.throwIfAny()
      for (let i = 0; i < order.length; i++) await tx.query('UPDATE project_statuses SET position = $2, updated_at = now() WHERE id = $1', [order[i], i])
      before = { status_ids: active.map((s) => s.id) }
      after = { status_ids: order }
      subject = 'order'
      break
    }
    case 'retire': {
      const s = find(need(input.status_id, 'status_id', 'retire'), 'status_id')
      const rep = find(need(input.replacement_id, 'replacement_id', 'retire'), 'replacement_id')
      if (s.retired_at !== null) throw new CatalogueRuleError('the status is already retired')
      if (rep.id === s.id) throw invalid(['body', 'replacement_id'], 'The replacement must be another status', REF_TYPES.invalid, rep.id)
      if (rep.retired_at !== null) throw invalid(['body', 'replacement_id'], 'The replacement status is retired', REF_TYPES.archived, rep.id)
      await tx.query('UPDATE project_statuses SET retired_at = now(), replacement_id = $2, is_default = false, position = -1, updated_at = now() WHERE id = $1', [s.id, rep.id])
      if (s.is_default) await tx.query('UPDATE project_statuses SET is_default = true, updated_at = now() WHERE id = $1', [rep.id])
      // Every record on the retired status moves to the replacement: a change of each (new revision, activity entry).
      const m = await tx.query(
        `WITH moved AS (
           UPDATE project_items SET status_id = $2, revision = revision + 1, updated_at = now()
           WHERE status_id = $1 RETURNING id, board_id, number, title)
         INSERT INTO project_activity (id, workspace_id, board_id, item_id, entity, action, summary, actor, before, after)
         SELECT gen_random_uuid(), $3, board_id, id, 'task', 'update',
           'task #' || coalesce(number::text, '?') || ' ' || to_json(title)::text || ': status retired', $4::jsonb,
           jsonb_build_object('status_id', $1::uuid), jsonb_build_object('status_id', $2::uuid)
         FROM moved RETURNING item_id`,
        [s.id, rep.id, ws, actorJson(ctx.actor)])
      moved = m.rows.length
      before = { status_id: s.id, retired: false }
      after = { status_id: s.id, retired: true, replacement_id: rep.id, moved_tasks: moved }
      subject = s.name
      break
    }
  }
  await recordActivity(tx, ws, ctx.actor, {
    boardId, itemId: null, entity: 'status', action: input.action, summary: `status ${JSON.stringify(subject)}: ${input.action}`, before, after,
  })
  return readStatuses(tx, ws, boardId)
}

export async function configureStatuses(ctx: ProjectCtx, input: BoardConfigureInput): Promise<StatusCatalogue> {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  return ctx.db.transaction((tx) => configureStatusesIn(tx, ctx, defaultBoard, input))
}
