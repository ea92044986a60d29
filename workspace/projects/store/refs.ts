// References a body makes (board, status, type, labels, deliverable) checked
// inside the change's transaction. A missing or no-longer-assignable reference
// is a validation problem at the field's location (422 cloud, 400 desktop).
import type { Sql } from '../../../core/index.ts'
import { BoardArchivedError } from '../../errors.ts'
import { RequestInvalid } from '../../../core/index.ts'
import { detail, type DetailItem } from '../../../core/index.ts'

export const REF_TYPES = { notFound: 'reference_not_found', archived: 'reference_archived', invalid: 'value_error' } as const

/** Collects problems and throws them together. */
export class Problems {
  readonly items: DetailItem[] = []

  add(loc: (string | number)[], msg: string, type: string = REF_TYPES.invalid, input?: unknown): void {
    this.items.push(detail(loc, msg, type, input))
  }

  throwIfAny(): void {
    if (this.items.length > 0) throw new RequestInvalid(this.items)
  }
}

export function invalid(loc: (string | number)[], msg: string, type: string = REF_TYPES.invalid, input?: unknown): RequestInvalid {
  return new RequestInvalid([detail(loc, msg, type, input)])
}

export interface BoardRef {
  id: string
  archived: boolean
}

/** The board a body names (or the default one); an archived board takes nothing new. */
export async function placementBoard(tx: Sql, workspaceId: string, boardId: string | null | undefined, defaultBoard: string, loc: (string | number)[]): Promise<string> {
  const id = boardId ?? defaultBoard
  const r = await tx.query<{ archived: boolean }>('SELECT archived_at IS NOT NULL AS archived FROM project_boards WHERE workspace_id = $1 AND id = $2', [workspaceId, id])
  return boardPlacement(r.rows[0], id, loc)
}

/** placementBoard on the board already read (undefined: not in the workspace); throws its refusal. */
export function boardPlacement(b: { archived: boolean } | undefined, id: string, loc: (string | number)[]): string {
  if (b === undefined) throw invalid(loc, 'Board not found in this workspace', REF_TYPES.notFound, id)
  if (b.archived) throw new BoardArchivedError(id)
  return id
}

/** A status of the board that is not retired; omitted means the board's default. */
export async function boardStatus(tx: Sql, boardId: string, statusId: string | null | undefined, loc: (string | number)[], p: Problems): Promise<string | null> {
  if (statusId == null) {
    const r = await tx.query<{ id: string }>('SELECT id FROM project_statuses WHERE board_id = $1 AND is_default AND retired_at IS NULL', [boardId])
    return r.rows[0]?.id ?? null
  }
  const r = await tx.query<{ retired: boolean }>('SELECT retired_at IS NOT NULL AS retired FROM project_statuses WHERE board_id = $1 AND id = $2', [boardId, statusId])
  statusProblem(r.rows[0], statusId, loc, p)
  return statusId
}

/** boardStatus's check of a named status on the status already read (undefined: not on the board). */
export function statusProblem(s: { retired: boolean } | undefined, statusId: string, loc: (string | number)[], p: Problems): void {
  if (s === undefined) p.add(loc, 'Status not found on the board', REF_TYPES.notFound, statusId)
  else if (s.retired) p.add(loc, 'The status is retired', REF_TYPES.archived, statusId)
}

/** The first active status of a category on a board (status follows state). */
export async function statusOfCategory(tx: Sql, boardId: string, category: string): Promise<string | null> {
  const r = await tx.query<{ id: string }>(
    `SELECT id FROM project_statuses WHERE board_id = $1 AND category = $2 AND retired_at IS NULL
     ORDER BY is_default DESC, position LIMIT 1`, [boardId, category])
  return r.rows[0]?.id ?? null
}

export async function statusCategory(tx: Sql, statusId: string | null): Promise<string | null> {
  if (statusId === null) return null
  const r = await tx.query<{ category: string }>('SELECT category FROM project_statuses WHERE id = $1', [statusId])
  return r.rows[0]?.category ?? null
}

/**
 * Type and labels: each must exist; an archived one is accepted only if the
 * item already carries it ("archived choices stay visible but cannot be newly assigned").
 */
export async function checkTaxonomy(
  tx: Sql, workspaceId: string, typeId: string | null | undefined, labelIds: readonly string[] | null | undefined,
  current: { type_id: string | null; label_ids: readonly string[] }, loc: (string | number)[], p: Problems,
): Promise<void> {
  const ids = [...(typeId == null ? [] : [typeId]), ...(labelIds ?? [])]
  if (ids.length === 0) return
  const r = await tx.query<TaxonomyRef>(
    'SELECT id, kind, archived_at IS NOT NULL AS archived FROM project_taxonomy WHERE workspace_id = $1 AND id = ANY($2::uuid[])', [workspaceId, ids])
  taxonomyProblems(new Map(r.rows.map((x) => [x.id, x])), typeId, labelIds, current, loc, p)
}

export interface TaxonomyRef {
  id: string
  kind: string
  archived: boolean
}

/** checkTaxonomy on entries already read (a batch reads them once for all its items). */
export function taxonomyProblems(
  found: ReadonlyMap<string, TaxonomyRef>, typeId: string | null | undefined, labelIds: readonly string[] | null | undefined,
  current: { type_id: string | null; label_ids: readonly string[] }, loc: (string | number)[], p: Problems,
): void {
  if (typeId != null) {
    const t = found.get(typeId)
    if (t === undefined || t.kind !== 'type') p.add([...loc, 'type_id'], 'Task type not found', REF_TYPES.notFound, typeId)
    else if (t.archived && current.type_id !== typeId) p.add([...loc, 'type_id'], 'The task type is archived and cannot be newly assigned', REF_TYPES.archived, typeId)
  }
  labelIds?.forEach((id, i) => {
    const l = found.get(id)
    if (l === undefined || l.kind !== 'label') p.add([...loc, 'label_ids', i], 'Label not found', REF_TYPES.notFound, id)
    else if (l.archived && !current.label_ids.includes(id)) p.add([...loc, 'label_ids', i], 'The label is archived and cannot be newly assigned', REF_TYPES.archived, id)
  })
}

/** The workspace's default type (for a new task that names none). */
export async function defaultType(tx: Sql, workspaceId: string): Promise<string | null> {
  const r = await tx.query<{ id: string }>(`SELECT id FROM project_taxonomy WHERE workspace_id = $1 AND kind = 'type' AND is_default AND archived_at IS NULL`, [workspaceId])
  return r.rows[0]?.id ?? null
}

export async function defaultLabels(tx: Sql, workspaceId: string): Promise<string[]> {
  const r = await tx.query<{ id: string }>(
    `SELECT id FROM project_taxonomy WHERE workspace_id = $1 AND kind = 'label' AND is_default AND archived_at IS NULL ORDER BY position, id`, [workspaceId])
  return r.rows.map((x) => x.id)
}

export async function checkDeliverable(tx: Sql, workspaceId: string, id: string | null | undefined, current: string | null, loc: (string | number)[], p: Problems): Promise<void> {
  if (id == null || id === current) return
  const r = await tx.query<{ deleted: boolean }>(
    `SELECT deleted_at IS NOT NULL AS deleted FROM project_items WHERE workspace_id = $1 AND id = $2 AND item_type = 'deliverable'`, [workspaceId, id])
  deliverableProblem(r.rows[0], id, loc, p)
}

/** checkDeliverable on the deliverable already read (undefined: none with that id). */
export function deliverableProblem(d: { deleted: boolean } | undefined, id: string, loc: (string | number)[], p: Problems): void {
  if (d === undefined) p.add(loc, 'Deliverable not found', REF_TYPES.notFound, id)
  else if (d.deleted) p.add(loc, 'The deliverable is deleted', REF_TYPES.archived, id)
}

export function checkDates(startsOn: string | null | undefined, dueOn: string | null | undefined, loc: (string | number)[], p: Problems): void {
  if (startsOn != null && dueOn != null && startsOn > dueOn) p.add([...loc, 'due_on'], 'due_on must not be before starts_on', REF_TYPES.invalid, dueOn)
}

/** Removes repeated ids, keeping the first of each. */
export function unique(ids: readonly string[]): string[] {
  return [...new Set(ids.map((s) => s.toLowerCase()))]
}
