// The work-state model as a table: every (state, action) pair, against the
// transitions documented in workspace/projects/README.md.
import t from 'tap'
import { ACTIONS, WORK_STATES, nextState, type ActionName, type WorkState } from '../../../workspace/internal.ts'

const S = Object.values(WORK_STATES) as WorkState[]
const live = (state: WorkState, reviewer: number | null = null) => ({ state, archived: false, deleted: false, reviewer })

// Expected next state per action and current state; absent means refused.
const named: Partial<Record<ActionName, Partial<Record<WorkState, WorkState>>>> = {
  work: { open: 'in_progress', changes_requested: 'in_progress', blocked: 'in_progress' },
  approve: { review: 'done' },
  changes: { review: 'changes_requested' },
  reopen: { done: 'open', cancelled: 'open' },
  claim: { open: 'open', in_progress: 'in_progress', review: 'review', changes_requested: 'changes_requested', blocked: 'blocked' },
  update: { open: 'open', in_progress: 'in_progress', review: 'review', changes_requested: 'changes_requested', blocked: 'blocked' },
  archive: Object.fromEntries(S.map((s) => [s, s])),
}

t.test('named actions from every state', async (t) => {
  for (const [action, table] of Object.entries(named) as [ActionName, Partial<Record<WorkState, WorkState>>][]) {
    for (const from of S) {
      const v = nextState(live(from), action)
      const want = table[from]
      if (want === undefined) t.match(v, { ok: false, code: 'transition' }, `${action} from ${from} refused`)
      else t.same(v, { ok: true, state: want }, `${action} from ${from} → ${want}`)
    }
  }
  t.match(nextState(live('open'), 'restore'), { ok: false, code: 'transition' }, 'restore needs an archived or deleted item')
})

// The `state` action: target → states it may be entered from.
const targets: Record<WorkState, WorkState[]> = {
  open: ['blocked'],
  in_progress: ['open', 'changes_requested', 'blocked'],
  review: ['in_progress'],
  changes_requested: ['review'],
  blocked: ['open', 'in_progress', 'changes_requested'],
  done: ['open', 'in_progress'],
  cancelled: ['open', 'in_progress', 'review', 'changes_requested', 'blocked'],
}

t.test('the state action, every target from every state', async (t) => {
  for (const to of S) {
    for (const from of S) {
      const v = nextState(live(from), 'state', to)
      if (targets[to].includes(from)) t.same(v, { ok: true, state: to }, `${from} → ${to}`)
      else t.match(v, { ok: false, code: 'transition' }, `${from} → ${to} refused`)
    }
  }
  t.match(nextState(live('in_progress', 7), 'state', 'done'), { ok: false, message: /reviewer/ }, 'a reviewer means review and approve')
  t.match(nextState(live('review'), 'state', 'done'), { ok: false, message: /use approve/ })
  t.match(nextState(live('open'), 'state'), { ok: false }, 'no target')
})

t.test('archived and deleted items accept only restore', async (t) => {
  for (const action of ACTIONS) {
    const a = nextState({ state: 'open', archived: true, deleted: false, reviewer: null }, action, 'in_progress')
    const d = nextState({ state: 'open', archived: false, deleted: true, reviewer: null }, action, 'in_progress')
    if (action === 'restore') {
      t.same(a, { ok: true, state: 'open' })
      t.same(d, { ok: true, state: 'open' })
    } else {
      t.match(a, { ok: false, code: 'archived' }, `${action} on archived`)
      t.match(d, { ok: false, code: 'deleted' }, `${action} on deleted`)
    }
  }
  t.match(nextState({ state: 'open', archived: true, deleted: true, reviewer: null }, 'work'), { ok: false, code: 'deleted' }, 'deleted wins')
})
