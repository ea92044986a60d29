// A work-state change made on the desktop reaches the portal as the workflow
// actions that lead there (the portal takes no state field): the shortest
// sequence the state model allows from the portal's state to the desktop's,
// e.g. open -> done with a reviewer is work, state review, approve. Approval
// decisions are approve / changes from review, like on the desktop.
import { nextState, WORK_STATES, type ActionName, type WorkState } from '../../workspace/index.ts'

export interface StateStep {
  action: ActionName
  state?: WorkState
}

const CANDIDATES: StateStep[] = [
  { action: 'work' }, { action: 'approve' }, { action: 'changes' }, { action: 'reopen' },
  ...Object.values(WORK_STATES).map((s) => ({ action: 'state' as const, state: s })),
]

/** The actions from `from` to `to` (breadth first, named actions before `state`); null when the model allows no path. */
export function statePath(from: WorkState, to: WorkState, reviewer: number | null): StateStep[] | null {
  if (from === to) return []
  const seen = new Map<WorkState, StateStep[]>([[from, []]])
  const queue: WorkState[] = [from]
  while (queue.length > 0) {
    const at = queue.shift() as WorkState
    for (const step of CANDIDATES) {
      const v = nextState({ state: at, archived: false, deleted: false, reviewer }, step.action, step.state)
      if (!v.ok || seen.has(v.state)) continue
      const path = [...(seen.get(at) as StateStep[]), step]
      if (v.state === to) return path
      // Blocking needs a reason the desktop gave only for its own block: never a step on the way.
      if (v.state === 'blocked') continue
      seen.set(v.state, path)
      queue.push(v.state)
    }
  }
  return null
}
