// Task taxonomy (TaxonomyConfigure): the workspace's task types and labels, one
// catalogue guarded by a 64-character revision token swapped atomically on
// every change. Archived choices stay on the tasks that carry them but cannot
// be newly assigned (see refs.ts).
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { CatalogueRuleError, DuplicateError, StaleRevisionError } from '../../errors.ts'
import { LIMITS } from '../schemas/fields.ts'
import { recordActivity } from './activity.ts'
import type { ProjectCtx } from './context.ts'
import { ensureProject, newCatalogueToken } from './defaults.ts'
import { REF_TYPES, invalid } from './refs.ts'

interface ChoiceRow {
  id: string
  kind: 'type' | 'label'
  name: string
  icon: string | null
  position: number
  is_default: boolean
  archived_at: Date | null
}

function toChoice(c: ChoiceRow) {
  return {
    id: c.id, kind: c.kind, name: c.name, icon: c.icon, position: c.position, is_default: c.is_default,
    archived: c.archived_at !== null, archived_at: c.archived_at === null ? null : new Date(c.archived_at).toISOString(),
  }
}

export interface TaxonomyCatalogue {
  workspace_id: string
  revision: string
  types: ReturnType<typeof toChoice>[]
  labels: ReturnType<typeof toChoice>[]
}

/** Active choices, or with `archived` only the archived ones, in order. */
export async function readTaxonomy(db: Sql, workspaceId: string, archived = false): Promise<TaxonomyCatalogue> {
  const t = await db.query<{ taxonomy_token: string }>('SELECT taxonomy_token FROM project_workspaces WHERE workspace_id = $1', [workspaceId])
  const r = await db.query<ChoiceRow>(
    `SELECT id, kind, name, icon, position, is_default, archived_at FROM project_taxonomy
     WHERE workspace_id = $1 AND archived_at IS ${archived ? 'NOT NULL' : 'NULL'} ORDER BY kind, position, id`, [workspaceId])
  return {
    workspace_id: workspaceId,
    revision: t.rows[0]?.taxonomy_token ?? '',
    types: r.rows.filter((c) => c.kind === 'type').map(toChoice),
    labels: r.rows.filter((c) => c.kind === 'label').map(toChoice),
  }
}

export async function taxonomyCatalogue(ctx: ProjectCtx, archived: boolean): Promise<TaxonomyCatalogue> {
  await ensureProject(ctx.db, ctx.workspaceId)
  return readTaxonomy(ctx.db, ctx.workspaceId, archived)
}

export interface TaxonomyInput {
  board_id?: string | null
  revision: string
  kind: 'type' | 'label'
  operation: 'create' | 'update' | 'archive' | 'default' | 'reorder'
  id?: string | null
  name?: string | null
  icon?: string | null
  order?: string[] | null
}

function need<T>(v: T | null | undefined, field: string, op: string): T {
  if (v == null) throw invalid(['body', field], `Field required for ${op}`, 'missing')
  return v
}

export async function configureTaxonomyIn(tx: Sql, ctx: ProjectCtx, input: TaxonomyInput): Promise<TaxonomyCatalogue> {
  const ws = ctx.workspaceId
  if (input.board_id != null) {
    // The catalogue is the workspace's; a board named in the body must still be one of it.
    const b = await tx.query('SELECT 1 FROM project_boards WHERE workspace_id = $1 AND id = $2', [ws, input.board_id])
    if (b.rows.length === 0) throw invalid(['body', 'board_id'], 'Board not found in this workspace', REF_TYPES.notFound, input.board_id)
  }
  const swapped = await tx.query('UPDATE project_workspaces SET taxonomy_token = $2 WHERE workspace_id = $1 AND taxonomy_token = $3 RETURNING workspace_id',
    [ws, newCatalogueToken(), input.revision])
  if (swapped.rows.length === 0) throw new StaleRevisionError('the taxonomy catalogue changed since that revision token')
  const all = (await tx.query<ChoiceRow>(
    'SELECT id, kind, name, icon, position, is_default, archived_at FROM project_taxonomy WHERE workspace_id = $1 AND kind = $2 ORDER BY position, id',
    [ws, input.kind])).rows
  const active = all.filter((c) => c.archived_at === null)
  const op = input.operation
  const find = (): ChoiceRow => {
    const id = need(input.id, 'id', op)
    const c = all.find((x) => x.id === id)
    if (c === undefined) throw invalid(['body', 'id'], `No ${input.kind} with this id`, REF_TYPES.notFound, id)
    return c
  }
  const sameName = (name: string, except?: string) => active.some((c) => c.id !== except && c.name.toLowerCase() === name.toLowerCase())
  let before: Record<string, unknown> | null = null
  let after: Record<string, unknown> | null = null
  let subject = ''
  switch (op) {
    case 'create': {
      const name = need(input.name, 'name', op)
      if (all.length >= LIMITS.choicesPerKind) throw new CatalogueRuleError(`a workspace holds at most ${LIMITS.choicesPerKind} ${input.kind}s`)
      if (sameName(name)) throw new DuplicateError(`${input.kind} ${JSON.stringify(name)}`)
      const id = randomUUID()
      const icon = input.icon ?? (input.kind === 'type' ? 'task' : null)
      const position = all.reduce((m, c) => Math.max(m, c.position), -1) + 1
      await tx.query('INSERT INTO project_taxonomy (id, workspace_id, kind, name, icon, position) VALUES ($1, $2, $3, $4, $5, $6)',
        [id, ws, input.kind, name, icon, position])
      after = { id, name, icon }
      subject = name
      break
    }
    case 'update': {
      const c = find()
      const next = { name: input.name ?? c.name, icon: input.icon ?? c.icon }
      if (next.name !== c.name && sameName(next.name, c.id)) throw new DuplicateError(`${input.kind} ${JSON.stringify(next.name)}`)
      await tx.query('UPDATE project_taxonomy SET name = $2, icon = $3, updated_at = now() WHERE id = $1', [c.id, next.name, next.icon])
      before = { id: c.id, name: c.name, icon: c.icon }
      after = { id: c.id, ...next }
      subject = next.name
      break
    }
    case 'archive': {
      const c = find()
      if (c.archived_at !== null) throw new CatalogueRuleError(`the ${input.kind} is already archived`)
      // Archiving the default leaves the kind without a default.
      await tx.query('UPDATE project_taxonomy SET archived_at = now(), is_default = false, updated_at = now() WHERE id = $1', [c.id])
      before = { id: c.id, archived: false, is_default: c.is_default }
      after = { id: c.id, archived: true, is_default: false }
      subject = c.name
      break
    }
    case 'default': {
      const c = find()
      if (c.archived_at !== null) throw new CatalogueRuleError(`an archived ${input.kind} cannot be the default`)
      const prior = active.find((x) => x.is_default)
      await tx.query('UPDATE project_taxonomy SET is_default = (id = $3), updated_at = now() WHERE workspace_id = $1 AND kind = $2 AND (is_default OR id = $3)',
        [ws, input.kind, c.id])
      before = { default_id: prior?.id ?? null }
      after = { default_id: c.id }
      subject = c.name
      break
    }
    case 'reorder': {
      const order = need(input.order, 'order', op)
      const want = new Set(active.map((c) => c.id))
      if (order.length !== want.size || new Set(order).size !== order.length || !order.every((id) => want.has(id))) {
        throw invalid(['body', 'order'], `order must list every active ${input.kind} exactly once`, REF_TYPES.invalid, order)
      }
      for (let i = 0; i < order.length; i++) await tx.query('UPDATE project_taxonomy SET position = $2, updated_at = now() WHERE id = $1', [order[i], i])
      before = { order: active.map((c) => c.id) }
      after = { order }
      subject = 'order'
      break
    }
  }
  await recordActivity(tx, ws, ctx.actor, {
    boardId: null, itemId: null, entity: input.kind, action: op, summary: `${input.kind} ${JSON.stringify(subject)}: ${op}`, before, after,
  })
  return readTaxonomy(tx, ws)
}

export async function configureTaxonomy(ctx: ProjectCtx, input: TaxonomyInput): Promise<TaxonomyCatalogue> {
  await ensureProject(ctx.db, ctx.workspaceId)
  return ctx.db.transaction((tx) => configureTaxonomyIn(tx, ctx, input))
}
