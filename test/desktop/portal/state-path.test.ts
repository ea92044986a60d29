// A desktop work-state change as the portal's workflow actions: the shortest
// path the state model allows, approve/changes for review decisions, a reviewer
// making done go through review, and never a block on the way.
import t from 'tap'
import { statePath } from '../../../desktop/portal/state-path.ts'

t.same(statePath('open', 'open', null), [], 'no change, no action')
t.same(statePath('open', 'done', null), [{ action: 'state', state: 'done' }], 'without a reviewer: done directly')
t.same(statePath('open', 'done', 5), [{ action: 'work' }, { action: 'state', state: 'review' }, { action: 'approve' }], 'with a reviewer: work, review, approve')
t.same(statePath('review', 'changes_requested', 5), [{ action: 'changes' }], 'a decision for changes')
t.same(statePath('done', 'in_progress', 5), [{ action: 'reopen' }, { action: 'work' }], 'reopened, then worked on')
t.same(statePath('in_progress', 'blocked', null), [{ action: 'state', state: 'blocked' }])
t.same(statePath('blocked', 'review', null), [{ action: 'work' }, { action: 'state', state: 'review' }])
for (const from of ['open', 'in_progress', 'review', 'changes_requested', 'done', 'cancelled'] as const) {
  const path = statePath(from, 'cancelled', null)
  if (from === 'cancelled') t.same(path, [])
  else t.ok(path !== null && path.every((s) => s.state !== 'blocked' || s === path[path.length - 1]), `${from} -> cancelled never blocks on the way`)
}
t.same(statePath('done', 'blocked', 5), [{ action: 'reopen' }, { action: 'state', state: 'blocked' }], 'blocked only as the target')
