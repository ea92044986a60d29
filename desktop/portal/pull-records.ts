// Brings the portal's comments and edges to the desktop, after its tasks and
// notes (a record follows its items). Later pulls read the records the
// activity feed names since the cursor (the comments of each task it names, the
// edges when it names one); the first pull reads the comments of every task the
// whole feed names and every edge.
import { portalCall } from './client.ts'
import { APPLY } from './local-tasks.ts'
import type { PushContext } from './push.ts'
import { portalComments, portalEdges } from './push-records.ts'
import { applyPortalRecord, type PortalRecord } from './records.ts'

/** What the activity feed named since the cursor: tasks whose comments changed, and whether an edge did. */
export interface RecordChanges {
  commentTasks: Set<string>
  edges: boolean
}

export function noRecordChanges(): RecordChanges {
  return { commentTasks: new Set(), edges: false }
}

/** Notes an activity entry about a comment or an edge. */
export function noteRecordEntry(r: RecordChanges, e: { entity: string; item_id: string | null }): void {
  if (e.entity === 'comment' && e.item_id !== null) r.commentTasks.add(e.item_id)
  if (e.entity === 'edge') r.edges = true
}

/** The whole feed (the first pull): every task with a comment entry. */
async function everything(c: PushContext): Promise<RecordChanges> {
  const out = noRecordChanges()
  out.edges = true
  let cursor: string | undefined
  do {
    const r = await portalCall<{ items: { entity: string; item_id: string | null }[]; next_cursor: string | null }>(c.target, 'GET',
      `/v1/workspaces/${c.portalWs}/project/activity`, undefined, { query: { limit: 100, cursor } })
    for (const e of r.body.items) noteRecordEntry(out, e)
    cursor = r.body.next_cursor ?? undefined
  } while (cursor !== undefined)
  return out
}

/** One pull of records; `changes` null: read everything. Returns how many were written and how many wait for their items. */
export async function pullRecords(c: PushContext, changes: RecordChanges | null): Promise<{ applied: number; deferred: number }> {
  const todo = changes ?? await everything(c)
  let applied = 0
  let deferred = 0
  const apply = async (p: PortalRecord) => {
    const out = await applyPortalRecord(c.db, c.ws, p)
    if (out === APPLY.applied) applied++
    if (out === APPLY.deferred) deferred++
  }
  for (const task of todo.commentTasks) for (const p of await portalComments(c, task)) await apply(p)
  if (todo.edges) for (const p of await portalEdges(c)) await apply(p)
  return { applied, deferred }
}
