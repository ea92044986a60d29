// Actions on tasks, deliverables and notes: the state model decides whether the
// action is allowed from the current state; the change is applied in the row's
// transaction like any edit (revision, activity, outbox).
import type { Sql } from '../../../core/index.ts'
import { AlreadyClaimedError, ItemArchivedError, ItemDeletedError, NotApplicableError, TransitionError } from '../../errors.ts'
import {
  STATE_CATEGORY, WORK_STATE_VALUES, isWorkState, nextState, type ActionName, type WorkState,
} from '../state-model.ts'
import type { ProjectCtx } from './context.ts'
import { applyChanges, checkRevision, lockItem, toView, type ItemChanges, type ItemRow, type ItemType, type ItemView } from './items.ts'
import { lockVisibleNote } from './notes.ts'
import { Problems, boardStatus, invalid, statusCategory, statusOfCategory } from './refs.ts'

export interface ActionInput {
  board_id?: string | null
  status_id?: string | null
  revision: number
  action: ActionName
  state?: string | null
  body?: string
  blocked_reason?: string
  assignee?: number | null
  priority?: string | null
}

/** Which optional fields each action reads; any other one given is refused, not ignored. */
const ACTION_FIELDS: Record<ActionName, readonly string[]> = {
  work: ['status_id'],
  claim: ['assignee'],
  approve: ['status_id'],
  changes: ['status_id'],
  state: ['state', 'status_id', 'blocked_reason'],
  reopen: ['status_id'],
  archive: [],
  restore: [],
  update: ['assignee', 'priority', 'status_id', 'blocked_reason'],
}

const NOTE_ACTIONS: readonly ActionName[] = ['archive', 'restore']

function given(input: ActionInput, field: string): boolean {
  const v = (input as unknown as Record<string, unknown>)[field]
  if (field === 'assignee') return v !== undefined
  return v !== undefined && v !== null && v !== ''
}

function checkFields(itemType: ItemType, input: ActionInput, loc: (string | number)[]): void {
  const p = new Problems()
  const allowed = ACTION_FIELDS[input.action]
  for (const f of ['status_id', 'assignee', 'priority', 'state', 'blocked_reason']) {
    if (!given(input, f)) continue
    if (!allowed.includes(f)) p.add([...loc, f], `${f} does not apply to the ${input.action} action`, 'not_applicable')
    else if (itemType === 'deliverable' && (f === 'status_id' || f === 'priority')) p.add([...loc, f], `deliverables have no ${f === 'status_id' ? 'status' : 'priority'}`, 'not_applicable')
  }
  p.throwIfAny()
}

async function applyActionTo(tx: Sql, ctx: ProjectCtx, row: ItemRow, input: ActionInput, loc: (string | number)[]): Promise<ItemRow> {
  checkRevision(row, input.revision, row.item_type)
  const note = input.body ?? ''
  if (row.item_type === 'note') {
    if (!NOTE_ACTIONS.includes(input.action)) throw new NotApplicableError(`notes accept ${NOTE_ACTIONS.join(' and ')}, not ${input.action}`)
  } else {
    checkFields(row.item_type, input, loc)
  }
  let target: WorkState | undefined
  if (input.action === 'state') {
    if (input.state == null || input.state === '') throw invalid([...loc, 'state'], 'Field required for the state action', 'missing')
    if (!isWorkState(input.state)) {
      throw invalid([...loc, 'state'], `Input should be ${WORK_STATE_VALUES.map((s) => `'${s}'`).join(', ')}`, 'enum', input.state)
    }
    target = input.state
  }
  const facts = { state: row.state ?? 'open', archived: row.archived_at !== null, deleted: row.deleted_at !== null, reviewer: row.reviewer }
  const verdict = nextState(facts, input.action, target)
  if (!verdict.ok) {
    if (verdict.code === 'deleted') throw new ItemDeletedError(verdict.message)
    if (verdict.code === 'archived') throw new ItemArchivedError(verdict.message)
    throw new TransitionError(verdict.message)
  }
  const c: ItemChanges = {}
  const person = row.item_type === 'deliverable' ? 'owner' : 'assignee'
  const current = row[person]
  switch (input.action) {
    case 'archive':
      c.archived = true
      break
    case 'restore':
      if (row.deleted_at !== null) c.deleted = false
      else c.archived = false
      break
    case 'claim': {
      const claimant = input.assignee ?? ctx.actor.userId
      if (claimant === null) throw invalid([...loc, 'assignee'], 'claim needs a user: give assignee (the credential is bound to none)', 'missing')
      if (current !== null && current !== claimant) throw new AlreadyClaimedError(`assigned to user ${current}`)
      c[person] = claimant
      break
    }
    case 'update':
      if (input.assignee !== undefined) c[person] = input.assignee
      if (input.priority != null) c.priority = input.priority
      if (input.blocked_reason !== undefined && input.blocked_reason !== '') {
        if (row.state !== 'blocked') throw invalid([...loc, 'blocked_reason'], 'only a blocked item has a blocked reason', 'not_applicable')
        c.blocked_reason = input.blocked_reason
      }
      break
    case 'work':
      if (current === null && ctx.actor.userId !== null) c[person] = ctx.actor.userId
      break
    default:
      break
  }
  if (verdict.state !== facts.state) {
    c.state = verdict.state
    if (verdict.state === 'blocked') {
      if (input.blocked_reason === undefined || input.blocked_reason === '') throw invalid([...loc, 'blocked_reason'], 'Field required when blocking', 'missing')
      c.blocked_reason = input.blocked_reason
    } else if (facts.state === 'blocked') {
      c.blocked_reason = ''
    }
  }
  if (row.item_type === 'task') {
    const p = new Problems()
    if (input.status_id != null) {
      if (input.status_id !== row.status_id) c.status_id = await boardStatus(tx, row.board_id, input.status_id, [...loc, 'status_id'], p)
    } else if (c.state != null) {
      // The board column follows the work state when its category no longer fits.
      const want = STATE_CATEGORY[c.state]
      if ((await statusCategory(tx, row.status_id)) !== want) {
        const s = await statusOfCategory(tx, row.board_id, want)
        if (s !== null) c.status_id = s
      }
    }
    p.throwIfAny()
  }
  return applyChanges(tx, ctx.actor, row, c, { action: input.action, note, revision: input.revision })
}

/** Applies an action to a task, deliverable or note. */
export async function applyAction(ctx: ProjectCtx, itemType: ItemType, id: string, input: ActionInput, loc: (string | number)[] = ['body']): Promise<ItemView> {
  return ctx.db.transaction(async (tx) => {
    const row = itemType === 'note'
      ? await lockVisibleNote(tx, ctx, id, input.board_id)
      : await lockItem(tx, ctx.workspaceId, id, { itemType, boardId: input.board_id })
    return toView(await applyActionTo(tx, ctx, row, input, loc))
  })
}

/** Same, on whichever kind of item the id names (desktop items are tasks or notes). */
export async function applyActionAny(tx: Sql, ctx: ProjectCtx, row: ItemRow, input: ActionInput, loc: (string | number)[]): Promise<ItemRow> {
  return applyActionTo(tx, ctx, row, input, loc)
}

