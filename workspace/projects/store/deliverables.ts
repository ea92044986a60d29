// Deliverables: the outcomes tasks contribute to, with an owner and dates.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { recordActivity } from './activity.ts'
import type { ProjectCtx } from './context.ts'
import { ensureProject } from './defaults.ts'
import { idempotent, type Outcome } from './idempotency.ts'
import { ITEM_COLS, applyChanges, checkEditable, checkRevision, lockItem, toDeliverable, type DeliverableView, type ItemChanges, type ItemRow } from './items.ts'
import { Problems, checkDates, placementBoard } from './refs.ts'

export interface DeliverableCreateInput {
  board_id?: string | null
  idempotency_key: string
  title: string
  description?: string
  acceptance?: string
  owner?: number | null
  starts_on?: string | null
  due_on?: string | null
}

export type DeliverableUpdateInput = { revision: number } & {
  [K in Exclude<keyof DeliverableCreateInput, 'idempotency_key'>]?: DeliverableCreateInput[K] | null
}

export async function createDeliverable(ctx: ProjectCtx, input: DeliverableCreateInput): Promise<Outcome<DeliverableView>> {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  const { idempotency_key: key, ...f } = input
  return idempotent(ctx.db, ctx.workspaceId, key, 'deliverable.create', f, async (tx: Sql) => {
    const boardId = await placementBoard(tx, ctx.workspaceId, f.board_id, defaultBoard, ['body', 'board_id'])
    const p = new Problems()
    checkDates(f.starts_on, f.due_on, ['body'], p)
    p.throwIfAny()
    const r = await tx.query<ItemRow>(
      `INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, title, description, acceptance, owner, starts_on, due_on, state, created_by)
       VALUES ($1, $2, 'deliverable', 'deliverable', $3, $4, $5, $6, $7, $8::date, $9::date, 'open', $10) RETURNING ${ITEM_COLS}`,
      [randomUUID(), ctx.workspaceId, boardId, f.title, f.description ?? '', f.acceptance ?? '', f.owner ?? null, f.starts_on ?? null, f.due_on ?? null, ctx.actor.userId])
    const row = r.rows[0] as ItemRow
    await recordActivity(tx, ctx.workspaceId, ctx.actor, {
      boardId, itemId: row.id, entity: 'deliverable', action: 'create', summary: `deliverable ${JSON.stringify(row.title)}: create`,
      before: null, after: { title: row.title, board_id: boardId, owner: row.owner, starts_on: row.starts_on, due_on: row.due_on },
    })
    return { status: 201, body: toDeliverable(row) }
  })
}

export async function updateDeliverable(ctx: ProjectCtx, id: string, input: DeliverableUpdateInput): Promise<DeliverableView> {
  return ctx.db.transaction(async (tx) => {
    const row = await lockItem(tx, ctx.workspaceId, id, { itemType: 'deliverable', boardId: input.board_id })
    checkRevision(row, input.revision, 'deliverable')
    checkEditable(row)
    const c: ItemChanges = {}
    if (input.title != null) c.title = input.title
    if (input.description !== undefined) c.description = input.description ?? ''
    if (input.acceptance !== undefined) c.acceptance = input.acceptance ?? ''
    if (input.owner !== undefined) c.owner = input.owner
    if (input.starts_on !== undefined) c.starts_on = input.starts_on
    if (input.due_on !== undefined) c.due_on = input.due_on
    const p = new Problems()
    checkDates(c.starts_on === undefined ? row.starts_on : c.starts_on, c.due_on === undefined ? row.due_on : c.due_on, ['body'], p)
    p.throwIfAny()
    return toDeliverable(await applyChanges(tx, ctx.actor, row, c, { action: 'update', revision: input.revision }))
  })
}
