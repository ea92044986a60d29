// Catalogue snapshots before tasks: boards, each board's statuses and (with
// task-taxonomy-v1) the types and labels, matched between the desktop and the
// portal by id, else by name; local-only entries are created on the portal,
// portal-only entries locally, and both sides adopt the portal's ids. Matched
// entries are merged three ways against the last agreed value: a change on one
// side is carried to the other; changes on both sides that differ open a
// review (portal_reviews) the owner resolves; nothing is overwritten silently.
import { createHash } from 'node:crypto'
import type { Database, Sql } from '../../core/index.ts'
import {
  boardIdTaken, forgetDefaultBoard, insertPortalBoard, insertPortalChoice, insertPortalStatus, liveBoards, liveStatuses, taxonomyChoices, writeCatalogueEntry,
  type SyncedStatus,
} from '../../workspace/index.ts'
import { adoptId, foldId } from './id-map.ts'
import { portalCall, type PortalTarget } from './client.ts'

interface Entry { id: string; value: Record<string, unknown> }
type Kind = 'status' | 'type' | 'label'

/** A uuid derived from a name: the idempotency key of a board creation is the same on every retry. */
export function derivedUuid(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** Key order does not count (values come back from jsonb with their keys reordered). */
const canon = (v: Record<string, unknown>) => JSON.stringify(Object.keys(v).sort().map((k) => [k, v[k]]))
const same = (a: Record<string, unknown>, b: Record<string, unknown>) => canon(a) === canon(b)

export interface CatalogueContext {
  db: Database
  ws: string
  portalWs: string
  target: PortalTarget
  taxonomy: boolean
  /** Set when a catalogue change waits for the tasks to be pushed first (an archive): the round runs the catalogues again after its push. */
  deferred?: boolean
}

const P = (c: CatalogueContext) => `/v1/workspaces/${c.portalWs}/project`

async function base(db: Sql, ws: string, id: string): Promise<Record<string, unknown> | undefined> {
  const r = await db.query<{ value: Record<string, unknown> }>('SELECT value FROM portal_catalogue_base WHERE workspace_id = $1 AND id = $2', [ws, id])
  return r.rows[0]?.value
}

async function setBase(db: Sql, ws: string, kind: string, id: string, value: Record<string, unknown>): Promise<void> {
  await db.query(
    `INSERT INTO portal_catalogue_base (workspace_id, kind, id, value) VALUES ($1, $2, $3, $4)
     ON CONFLICT (workspace_id, id) DO UPDATE SET value = EXCLUDED.value`, [ws, kind, id, JSON.stringify(value)])
}

async function openReview(db: Sql, ws: string, kind: string, id: string, local: Record<string, unknown>, portal: Record<string, unknown>): Promise<void> {
  await db.query(
    `INSERT INTO portal_reviews (id, workspace_id, kind, entry_id, local_value, portal_value) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5)
     ON CONFLICT (workspace_id, entry_id) WHERE state = 'open' DO UPDATE SET local_value = EXCLUDED.local_value, portal_value = EXCLUDED.portal_value`,
    [ws, kind, id, JSON.stringify(local), JSON.stringify(portal)])
}

async function hasOpenReview(db: Sql, ws: string, id: string): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM portal_reviews WHERE workspace_id = $1 AND entry_id = $2 AND state = 'open'`, [ws, id])
  return r.rows.length > 0
}

/**
 * Merges one catalogue: `push` carries a local change (or creation) to the
 * portal and returns the portal's id; `insert` creates a portal-only entry locally.
 */
async function merge(c: CatalogueContext, kind: Kind, local: Entry[], portal: Entry[], ops: {
  push(e: Entry, existing: string | null): Promise<string>
  insert(e: Entry): Promise<void>
  write(id: string, v: Record<string, unknown>): Promise<void>
}): Promise<void> {
  const byId = new Map(portal.map((p) => [p.id, p]))
  const byName = new Map(portal.map((p) => [String(p.value.name).toLowerCase(), p]))
  const matched = new Set<string>()
  for (const l of local) {
    let p = byId.get(l.id)
    if (p === undefined) {
      const named = byName.get(String(l.value.name).toLowerCase())
      if (named !== undefined && !matched.has(named.id) && !local.some((x) => x.id === named.id)) {
        await c.db.transaction((tx) => adoptId(tx, c.ws, kind, l.id, named.id))
        l.id = named.id
        p = named
      } else if (named !== undefined && local.some((x) => x.id === named.id)) {
        // The portal's entry of that name is already here: this one is a duplicate (connect-first), folded into it.
        await c.db.transaction((tx) => foldId(tx, c.ws, kind, l.id, named.id))
        continue
      }
    }
    if (p === undefined) {
      // Local only: created on the portal, then the local entry takes the portal's id. One archived here
      // before the first sync is created live, so the tasks that carry it can be created with it (the portal
      // takes no archived choice on a new task); its archive follows after the push (c.deferred).
      const sent = l.value.archived === true ? { ...l.value, archived: false } : l.value
      if (sent !== l.value) c.deferred = true
      const id = await ops.push({ id: l.id, value: sent }, null)
      await c.db.transaction((tx) => adoptId(tx, c.ws, kind, l.id, id))
      await setBase(c.db, c.ws, kind, id, sent)
      matched.add(id)
      continue
    }
    matched.add(p.id)
    const b = await base(c.db, c.ws, p.id)
    if (same(l.value, p.value)) {
      if (b === undefined || !same(b, p.value)) await setBase(c.db, c.ws, kind, p.id, p.value)
      continue
    }
    if (await hasOpenReview(c.db, c.ws, p.id)) continue
    const localChanged = b === undefined ? false : !same(l.value, b)
    const portalChanged = b === undefined ? true : !same(p.value, b)
    if (localChanged && portalChanged) {
      await openReview(c.db, c.ws, kind, p.id, l.value, p.value)
    } else if (localChanged) {
      await ops.push(l, p.id)
      await setBase(c.db, c.ws, kind, p.id, l.value)
    } else {
      await ops.write(p.id, p.value)
      await setBase(c.db, c.ws, kind, p.id, p.value)
    }
  }
  for (const p of portal) {
    if (matched.has(p.id)) continue
    await ops.insert(p)
    await setBase(c.db, c.ws, kind, p.id, p.value)
  }
}

type BoardView = { id: string; name: string; is_default: boolean }

/** Every board of the portal, live or (archived) the archive, page by page. */
async function portalBoards(c: CatalogueContext, archived: boolean): Promise<BoardView[]> {
  const out: BoardView[] = []
  let cursor: string | undefined
  do {
    const r = await portalCall<{ items: BoardView[]; next_cursor: string | null }>(c.target, 'GET', `${P(c)}/boards`, undefined, { query: { limit: 100, archived, cursor } })
    out.push(...r.body.items)
    cursor = r.body.next_cursor ?? undefined
  } while (cursor !== undefined)
  return out
}

async function syncBoards(c: CatalogueContext): Promise<string[]> {
  const portal = await portalBoards(c, false)
  const local = await liveBoards(c.db, c.ws)
  const portalDefault = portal.find((b) => b.is_default)
  const localDefault = local.find((b) => b.is_default)
  if (portalDefault !== undefined && localDefault !== undefined && portalDefault.id !== localDefault.id) {
    const pd = portalDefault.id
    // The portal's default board already here as a second board (an earlier connect-first round): the local default folds into it.
    const held = local.some((b) => b.id === pd) || await boardIdTaken(c.db, pd)
    await c.db.transaction((tx) => (held ? foldId(tx, c.ws, 'board', localDefault.id, pd) : adoptId(tx, c.ws, 'board', localDefault.id, pd)))
    forgetDefaultBoard(c.db, c.ws)
    if (held) local.splice(local.indexOf(localDefault), 1)
    else localDefault.id = pd
  }
  const portalIds = new Set(portal.map((b) => b.id))
  for (const b of local) {
    if (portalIds.has(b.id)) continue
    // The portal takes the desktop's board id (client-chosen board_id), so the id does not change.
    await portalCall(c.target, 'POST', `${P(c)}/boards`, { idempotency_key: derivedUuid('board', c.ws, b.id), board_id: b.id, name: b.name })
    portalIds.add(b.id)
  }
  const localIds = new Set(local.map((b) => b.id))
  for (const b of portal) {
    if (localIds.has(b.id)) continue
    await insertPortalBoard(c.db, c.ws, b.id, b.name, false)
  }
  // Archived portal boards still hold tasks: they exist here too (archived), so those tasks can be pulled.
  for (const b of await portalBoards(c, true)) {
    await insertPortalBoard(c.db, c.ws, b.id, b.name, true)
  }
  return [...portalIds]
}

type StatusView = { id: string; name: string; category: string; color: string; position: number; is_default: boolean }

async function syncStatuses(c: CatalogueContext, boardId: string): Promise<void> {
  const read = () => portalCall<{ revision: string; items: StatusView[] }>(c.target, 'GET', `${P(c)}/statuses`, undefined, { query: { board_id: boardId } })
  const portal = (await read()).body.items
  // A status the portal retired is retired here by the layout step (catalogue-layout.ts), never created there again.
  const retired = (await portalCall<{ items: StatusView[] }>(c.target, 'GET', `${P(c)}/statuses`, undefined, { query: { board_id: boardId, archived: true } })).body.items
  const local = (await liveStatuses(c.db, c.ws, boardId)).filter((s) => !retired.some((r) => r.id === s.id))
  const val = (s: SyncedStatus) => ({ name: s.name, category: s.category, color: s.color })
  await merge(c, 'status', local.map((s) => ({ id: s.id, value: val(s) })), portal.map((s) => ({ id: s.id, value: val(s) })), {
    push: async (e, existing) => {
      const rev = (await read()).body.revision
      const body = existing === null
        ? { board_id: boardId, revision: rev, action: 'create', ...e.value }
        : { board_id: boardId, revision: rev, action: 'update', status_id: existing, ...e.value }
      const out = await portalCall<{ items: StatusView[] }>(c.target, 'POST', `${P(c)}/statuses`, body)
      return existing ?? (out.body.items.find((s) => s.name.toLowerCase() === String(e.value.name).toLowerCase()) as StatusView).id
    },
    insert: async (e) => {
      const pos = portal.find((s) => s.id === e.id)?.position ?? 0
      await insertPortalStatus(c.db, c.ws, boardId, e.id, e.value, pos)
    },
    write: (id, v) => writeCatalogueEntry(c.db, c.ws, 'status', id, v, boardId),
  })
}

type Choice = { id: string; kind: 'type' | 'label'; name: string; icon: string | null; archived: boolean }

async function syncTaxonomy(c: CatalogueContext): Promise<void> {
  const read = async () => {
    const live = await portalCall<{ revision: string; types: Choice[]; labels: Choice[] }>(c.target, 'GET', `${P(c)}/taxonomy`)
    const gone = await portalCall<{ types: Choice[]; labels: Choice[] }>(c.target, 'GET', `${P(c)}/taxonomy`, undefined, { query: { archived: true } })
    return { revision: live.body.revision, all: [...live.body.types, ...live.body.labels, ...gone.body.types, ...gone.body.labels] }
  }
  const portal = (await read()).all
  const local = await taxonomyChoices(c.db, c.ws)
  const val = (x: Choice) => ({ name: x.name, icon: x.icon, archived: x.archived })
  for (const kind of ['type', 'label'] as const) {
    await merge(c, kind, local.filter((x) => x.kind === kind).map((x) => ({ id: x.id, value: val(x) })),
      portal.filter((x) => x.kind === kind).map((x) => ({ id: x.id, value: val(x) })), {
        push: async (e, existing) => {
          let rev = (await read()).revision
          let id = existing
          if (id === null) {
            const out = await portalCall<{ revision: string; types: Choice[]; labels: Choice[] }>(c.target, 'POST', `${P(c)}/taxonomy`,
              { revision: rev, kind, operation: 'create', name: e.value.name, ...(kind === 'type' && e.value.icon !== null ? { icon: e.value.icon } : {}) })
            id = ([...out.body.types, ...out.body.labels].find((x) => x.name.toLowerCase() === String(e.value.name).toLowerCase()) as Choice).id
            rev = out.body.revision
          } else {
            const out = await portalCall<{ revision: string }>(c.target, 'POST', `${P(c)}/taxonomy`,
              { revision: rev, kind, operation: 'update', id, name: e.value.name, ...(kind === 'type' && e.value.icon !== null ? { icon: e.value.icon } : {}) })
            rev = out.body.revision
          }
          if (e.value.archived === true) await portalCall(c.target, 'POST', `${P(c)}/taxonomy`, { revision: rev, kind, operation: 'archive', id })
          return id
        },
        insert: async (e) => {
          await insertPortalChoice(c.db, c.ws, kind, e.id, e.value)
        },
        write: (id, v) => writeCatalogueEntry(c.db, c.ws, kind, id, v),
      })
  }
}

/** The catalogue snapshot step of a sync cycle (before any task); returns the boards both sides hold. */
export async function syncCatalogues(c: CatalogueContext): Promise<string[]> {
  const boards = await syncBoards(c)
  for (const b of boards) await syncStatuses(c, b)
  if (c.taxonomy) await syncTaxonomy(c)
  return boards
}
