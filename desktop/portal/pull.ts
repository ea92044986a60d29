// Brings the portal's task and note changes to the desktop. The first pull (and any
// pull whose cursor the portal no longer shows) reads every task (live,
// archived, deleted) and note (live, archived); later pulls read the portal's activity feed newest
// first down to the last entry seen (the cursor), then fetch only the tasks
// named there. A task is written locally only when the portal's revision is
// newer than the one the desktop knows (local-tasks.ts).
import { portalCall } from './client.ts'
import { APPLY, applyPortalTask } from './local-tasks.ts'
import { fetchPortalTask, type PortalTask, type PushContext } from './push.ts'
import { noRecordChanges, noteRecordEntry, pullRecords, type RecordChanges } from './pull-records.ts'

/**
 * What a pull works with: a push's, this desktop's own credential on the
 * portal and the items its push of this round sent: those entries were merged
 * from the push's answers and are not fetched back one by one (another
 * desktop with the same token, or an earlier round, still is).
 */
export type PullContext = PushContext & { self?: string | null }
type Page<T> = { items: T[]; next_cursor: string | null }

type ItemType = 'task' | 'note' | 'deliverable'

/**
 * The cursor of a pull that found the portal's feed empty: every entry the feed
 * shows later is new. (A null cursor is a desktop that never pulled: it reads everything.)
 */
const EMPTY_FEED = ''

/** The newest activity entries, down to `cursor` (exclusive); null when the cursor was not found (read everything). */
async function changedSince(c: PullContext, cursor: string): Promise<{ ids: Map<string, ItemType>; records: RecordChanges; newest: string | null } | null> {
  const ids = new Map<string, ItemType>()
  const records = noRecordChanges()
  let newest: string | null = null
  let page: string | undefined
  for (let pages = 0; pages < 50; pages++) {
    const r = await portalCall<Page<{ id: string; item_id: string | null; entity: string; actor: { token_id: string } }>>(c.target, 'GET',
      `/v1/workspaces/${c.portalWs}/project/activity`, undefined, { query: { limit: 100, cursor: page } })
    for (const e of r.body.items) {
      newest ??= e.id
      if (e.id === cursor) return { ids, records, newest }
      noteRecordEntry(records, e)
      // This desktop's own pushes were merged from their answers when they were sent: not fetched again one by one.
      if (c.self != null && e.actor.token_id === c.self && e.item_id !== null && c.touched?.has(e.item_id) === true) continue
      if ((e.entity === 'task' || e.entity === 'note' || e.entity === 'deliverable') && e.item_id !== null) ids.set(e.item_id, e.entity)
    }
    if (r.body.next_cursor === null) return cursor === EMPTY_FEED ? { ids, records, newest } : null
    page = r.body.next_cursor
  }
  return null
}

async function newestActivity(c: PullContext): Promise<string | null> {
  const r = await portalCall<Page<{ id: string }>>(c.target, 'GET', `/v1/workspaces/${c.portalWs}/project/activity`, undefined, { query: { limit: 1 } })
  return r.body.items[0]?.id ?? null
}

const TYPE_OF = { tasks: 'task', notes: 'note', deliverables: 'deliverable' } as const

async function allItems(c: PullContext, each: (t: PortalTask, type: ItemType) => Promise<void>): Promise<void> {
  // Deliverables first: tasks link to them.
  const lists = [['deliverables', {}], ['deliverables', { archived: true }], ['tasks', {}], ['tasks', { archived: true }], ['tasks', { deleted: true }],
    ['notes', {}], ['notes', { archived: true }]] as const
  for (const [what, filter] of lists) {
    let cursor: string | undefined
    do {
      const r = await portalCall<Page<PortalTask>>(c.target, 'GET', `/v1/workspaces/${c.portalWs}/${what}`, undefined, { query: { limit: 100, cursor, ...filter } })
      // The revisions this desktop holds, read once per page: a record it already has at that revision costs no transaction.
      const known = await knownRevisions(c, r.body.items.map((t) => t.id))
      for (const t of r.body.items) if (!((known.get(t.id) ?? -1) >= t.revision)) await each(t, TYPE_OF[what])
      cursor = r.body.next_cursor ?? undefined
    } while (cursor !== undefined)
  }
}

/** The portal revision this desktop last agreed on, of each of these portal items it holds. */
async function knownRevisions(c: PullContext, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map()
  const r = await c.db.query<{ portal_id: string; portal_revision: number }>(
    'SELECT portal_id, portal_revision FROM portal_items WHERE workspace_id = $1 AND portal_id = ANY($2::uuid[]) AND portal_revision IS NOT NULL', [c.ws, ids])
  return new Map(r.rows.map((x) => [x.portal_id, x.portal_revision]))
}

/** One pull; returns how many tasks were written locally and the new cursor. */
export async function pull(c: PullContext, cursor: string | null): Promise<{ applied: number; cursor: string | null }> {
  let applied = 0
  let deferred = 0
  const apply = async (t: PortalTask, type: ItemType) => {
    const out = await applyPortalTask(c.db, c.ws, t, c.taxonomy, type)
    if (out === APPLY.applied) applied++
    if (out === APPLY.deferred) deferred++
  }
  // Taken before reading: a change made while this pull runs is read again next time, never skipped.
  const changes = cursor === null ? null : await changedSince(c, cursor)
  if (changes === null) {
    const head = await newestActivity(c)
    await allItems(c, apply)
    const r = await pullRecords(c, null)
    // A deferred task (a local edit in between, or its board not here yet) is read again next round.
    return { applied: applied + r.applied, cursor: deferred + r.deferred > 0 ? cursor : head ?? EMPTY_FEED }
  }
  // Deliverables first: tasks link to them.
  const order = [...changes.ids].sort((a, b) => Number(b[1] === 'deliverable') - Number(a[1] === 'deliverable'))
  for (const [id, type] of order) {
    const t = await fetchPortalTask(c, id, type)
    if (t !== undefined) await apply(t, type)
  }
  const r = await pullRecords(c, changes.records)
  applied += r.applied
  deferred += r.deferred
  return { applied, cursor: deferred > 0 ? cursor : changes.newest ?? cursor }
}
