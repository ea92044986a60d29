// The work-state model of tasks and deliverables: which action may move an item
// from which state to which. Pure functions over plain values; the store applies
// the result inside the item's row-locked transaction. README.md carries the
// same table for people.

export const WORK_STATES = {
  open: 'open',
  in_progress: 'in_progress',
  review: 'review',
  changes_requested: 'changes_requested',
  blocked: 'blocked',
  done: 'done',
  cancelled: 'cancelled',
} as const
export type WorkState = (typeof WORK_STATES)[keyof typeof WORK_STATES]
export const WORK_STATE_VALUES: readonly WorkState[] = Object.values(WORK_STATES)

export function isWorkState(s: string): s is WorkState {
  return (WORK_STATE_VALUES as readonly string[]).includes(s)
}

export const ACTIONS = ['work', 'claim', 'approve', 'changes', 'state', 'reopen', 'archive', 'restore', 'update'] as const
export type ActionName = (typeof ACTIONS)[number]

/** States in which work is still going on (an item can be claimed, updated, cancelled). */
export const ACTIVE_STATES: readonly WorkState[] = ['open', 'in_progress', 'review', 'changes_requested', 'blocked']
export const FINISHED_STATES: readonly WorkState[] = ['done', 'cancelled']

/** The board-status category a state belongs to (status follows state on actions). */
export const STATE_CATEGORY: Record<WorkState, 'todo' | 'doing' | 'done'> = {
  open: 'todo',
  in_progress: 'doing',
  review: 'doing',
  changes_requested: 'doing',
  blocked: 'doing',
  done: 'done',
  cancelled: 'done',
}

/** For the `state` action: the states each target may be entered from. */
export const STATE_TARGETS: Record<WorkState, readonly WorkState[]> = {
  open: ['blocked'],
  in_progress: ['open', 'changes_requested', 'blocked'],
  review: ['in_progress'],
  changes_requested: ['review'],
  blocked: ['open', 'in_progress', 'changes_requested'],
  done: ['open', 'in_progress'],
  cancelled: ACTIVE_STATES,
}

/** The named workflow actions: from which states, to which state. */
export const ACTION_MOVES = {
  work: { from: ['open', 'changes_requested', 'blocked'], to: 'in_progress' },
  approve: { from: ['review'], to: 'done' },
  changes: { from: ['review'], to: 'changes_requested' },
  reopen: { from: ['done', 'cancelled'], to: 'open' },
} as const satisfies Record<string, { from: readonly WorkState[]; to: WorkState }>

export interface ItemFacts {
  state: WorkState
  archived: boolean
  deleted: boolean
  /** Tasks: the reviewer; a task with one is finished by approve, not by `state: done`. */
  reviewer: number | null
}

export type Verdict =
  | { ok: true; state: WorkState }
  | { ok: false; code: 'transition' | 'deleted' | 'archived'; message: string }

const refuse = (message: string): Verdict => ({ ok: false, code: 'transition', message })

/**
 * The state after `action` (with `target` for the `state` action), or why not.
 * Archive, restore, claim and update keep the work state; the store handles their
 * flags and fields. Deleted items accept only restore; archived ones restore.
 */
export function nextState(item: ItemFacts, action: ActionName, target?: WorkState): Verdict {
  if (item.deleted && action !== 'restore') {
    return { ok: false, code: 'deleted', message: `the item is deleted: only restore is allowed (action ${action})` }
  }
  if (item.archived && action !== 'restore') {
    return { ok: false, code: 'archived', message: `the item is archived: only restore is allowed (action ${action})` }
  }
  switch (action) {
    case 'work':
    case 'approve':
    case 'changes':
    case 'reopen': {
      const move = ACTION_MOVES[action]
      if (!(move.from as readonly WorkState[]).includes(item.state)) {
        return refuse(`cannot ${action} from state ${item.state} (allowed from ${move.from.join(', ')})`)
      }
      return { ok: true, state: move.to }
    }
    case 'state': {
      if (target === undefined) return refuse('the state action needs a target state')
      if (target === item.state) return refuse(`the item is already in state ${target}`)
      if (!STATE_TARGETS[target].includes(item.state)) {
        const hint = target === 'done' && item.state === 'review' ? ' (use approve)' : ''
        return refuse(`cannot move from state ${item.state} to ${target}${hint}`)
      }
      if (target === 'done' && item.reviewer !== null) {
        return refuse('the item has a reviewer: it is finished by review and approve, not by state done')
      }
      return { ok: true, state: target }
    }
    case 'claim':
    case 'update':
      if (FINISHED_STATES.includes(item.state)) return refuse(`cannot ${action} a ${item.state} item (reopen it first)`)
      return { ok: true, state: item.state }
    case 'archive':
      return { ok: true, state: item.state }
    case 'restore':
      if (!item.deleted && !item.archived) return refuse('the item is neither deleted nor archived')
      return { ok: true, state: item.state }
  }
}
