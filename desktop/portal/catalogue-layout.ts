// A catalogue's layout, after its entries are matched (catalogues.ts): a
// board's status retirements, order and default; with task-taxonomy-v1 the
// order of types and labels and the default type. Retirement cannot be undone
// on either side, so both sides end with every status either side retired
// (its tasks moved to the replacement by each side's own retire). Order and
// default are merged three ways against the layout both sides last agreed on
// (portal_catalogue_base, one derived id per catalogue): a change on one side
// is carried to the other; when both changed it differently, or before any
// agreed layout, the portal's is kept (deploy/PORTAL.md, Limits).
import { configureStatusesIn, configureTaxonomyIn, statusCatalogue, taxonomyCatalogue, type ProjectCtx } from '../../workspace/index.ts'
import { portalCall } from './client.ts'
import { derivedUuid, type CatalogueContext } from './catalogues.ts'
import { SYNC_ACTOR } from './local-tasks.ts'

interface Layout { order: string[]; default: string | null; retired: Record<string, string> }
type Side = 'local' | 'portal'

const P = (c: CatalogueContext) => `/v1/workspaces/${c.portalWs}/project`
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

async function readBase(c: CatalogueContext, id: string): Promise<Layout | undefined> {
  const r = await c.db.query<{ value: Layout }>('SELECT value FROM portal_catalogue_base WHERE workspace_id = $1 AND id = $2', [c.ws, id])
  return r.rows[0]?.value
}

async function writeBase(c: CatalogueContext, id: string, v: Layout): Promise<void> {
  await c.db.query(
    `INSERT INTO portal_catalogue_base (workspace_id, kind, id, value) VALUES ($1, 'layout', $2, $3)
     ON CONFLICT (workspace_id, id) DO UPDATE SET value = EXCLUDED.value`, [c.ws, id, JSON.stringify(v)])
}

/** The ids of `a` that `b` holds too, in a's order. */
const common = (a: string[], b: string[]) => a.filter((x) => b.includes(x))

/**
 * Which side's order and default win: a side that alone changed since the
 * agreed layout; the portal's otherwise. Returns what to send where.
 */
function decide(local: Layout, portal: Layout, base: Layout | undefined): { order: Side | null; default: Side | null } {
  const lo = common(local.order, portal.order)
  const po = common(portal.order, local.order)
  const order = same(lo, po) ? null : base !== undefined && moved(lo, base.order) && !moved(po, base.order) ? 'local' : 'portal'
  const dflt = local.default === portal.default ? null
    : base !== undefined && local.default !== base.default && portal.default === base.default ? 'local' : 'portal'
  return { order, default: dflt }
}

/**
 * Whether a side's order changed since the agreed one: the entries both hold
 * are in another order, or an entry new since then is not at the end (a
 * creation appends; a new entry anywhere else was placed there).
 */
function moved(order: string[], agreed: string[]): boolean {
  const kept = order.filter((x) => agreed.includes(x))
  if (!same(kept, common(agreed, order))) return true
  const added = order.filter((x) => !agreed.includes(x))
  return !same(order.slice(order.length - added.length), added)
}

/** The full order for the side that takes `winner`'s: its ids in the winner's order, then its own others. */
const fullOrder = (winner: string[], own: string[]) => [...common(winner, own), ...own.filter((x) => !winner.includes(x))]

/** Status retirements, order and default of one board (after its statuses were matched). */
async function syncStatusLayout(c: CatalogueContext, boardId: string): Promise<void> {
  const ctx: ProjectCtx = { db: c.db, workspaceId: c.ws, actor: SYNC_ACTOR }
  type S = { id: string; is_default: boolean; replacement_id: string | null }
  const readPortal = async (): Promise<Layout & { revision: string }> => {
    const q = { board_id: boardId }
    const live = (await portalCall<{ revision: string; items: S[] }>(c.target, 'GET', `${P(c)}/statuses`, undefined, { query: q })).body
    const gone = (await portalCall<{ items: S[] }>(c.target, 'GET', `${P(c)}/statuses`, undefined, { query: { ...q, archived: true } })).body
    return layoutOf(live.items, gone.items, live.revision)
  }
  const readLocal = async () => layoutOf((await statusCatalogue(ctx, boardId, false)).items, (await statusCatalogue(ctx, boardId, true)).items, '')
  const local = await readLocal()
  let portal = await readPortal()
  const sendPortal = async (body: Record<string, unknown>) => {
    await portalCall(c.target, 'POST', `${P(c)}/statuses`, { board_id: boardId, revision: portal.revision, ...body })
    portal = await readPortal()
  }
  const setLocal = async (body: Record<string, unknown>) => {
    // Read before the transaction: the store has one connection (PGlite), a read beside an open transaction waits for it.
    const revision = (await statusCatalogue(ctx, boardId, false)).revision
    await c.db.transaction((tx) => configureStatusesIn(tx, ctx, boardId, { board_id: boardId, revision, ...body } as never))
  }
  for (const [id, rep] of Object.entries(local.retired)) {
    if (portal.order.includes(id) && portal.order.includes(rep)) await sendPortal({ action: 'retire', status_id: id, replacement_id: rep })
  }
  for (const [id, rep] of Object.entries(portal.retired)) {
    if (local.order.includes(id) && local.order.includes(rep)) await setLocal({ action: 'retire', status_id: id, replacement_id: rep })
  }
  const now = await readLocal()
  const base = await readBase(c, derivedUuid('layout', 'status', boardId))
  const d = decide(now, portal, base)
  if (d.order === 'local') await sendPortal({ action: 'reorder', status_ids: fullOrder(now.order, portal.order) })
  if (d.order === 'portal') await setLocal({ action: 'reorder', status_ids: fullOrder(portal.order, now.order) })
  if (d.default === 'local' && now.default !== null && portal.order.includes(now.default)) await sendPortal({ action: 'default', status_id: now.default })
  if (d.default === 'portal' && portal.default !== null && now.order.includes(portal.default)) await setLocal({ action: 'default', status_id: portal.default })
  await writeBase(c, derivedUuid('layout', 'status', boardId), { order: portal.order, default: portal.default, retired: {} })
}

/** The layouts of every board's statuses and (with the feature) of the taxonomy, after the entries were matched. */
export async function syncLayouts(c: CatalogueContext, boards: string[]): Promise<void> {
  for (const b of boards) await syncStatusLayout(c, b)
  if (c.taxonomy) await syncTaxonomyLayout(c)
}

function layoutOf(live: { id: string; is_default: boolean }[], gone: { id: string; replacement_id?: string | null }[], revision: string): Layout & { revision: string } {
  return {
    order: live.map((s) => s.id), default: live.find((s) => s.is_default)?.id ?? null, revision,
    retired: Object.fromEntries(gone.filter((s) => s.replacement_id != null).map((s) => [s.id, s.replacement_id as string])),
  }
}

/** The order of types and labels and the default type (archiving is part of the entries' merge). */
async function syncTaxonomyLayout(c: CatalogueContext): Promise<void> {
  const ctx: ProjectCtx = { db: c.db, workspaceId: c.ws, actor: SYNC_ACTOR }
  type T = { revision: string; types: { id: string; is_default: boolean }[]; labels: { id: string; is_default: boolean }[] }
  const readPortal = async () => (await portalCall<T>(c.target, 'GET', `${P(c)}/taxonomy`)).body
  for (const kind of ['type', 'label'] as const) {
    const list = (t: T) => (kind === 'type' ? t.types : t.labels)
    const local = layoutOf(list(await taxonomyCatalogue(ctx, false)), [], '')
    let t = await readPortal()
    const portal = layoutOf(list(t), [], t.revision)
    const sendPortal = async (body: Record<string, unknown>) => {
      await portalCall(c.target, 'POST', `${P(c)}/taxonomy`, { revision: t.revision, kind, ...body })
      t = await readPortal()
    }
    const setLocal = async (body: Record<string, unknown>) => {
      const revision = (await taxonomyCatalogue(ctx, false)).revision
      await c.db.transaction((tx) => configureTaxonomyIn(tx, ctx, { revision, kind, ...body } as never))
    }
    const baseId = derivedUuid('layout', kind, c.ws)
    const d = decide(local, portal, await readBase(c, baseId))
    if (d.order === 'local') await sendPortal({ operation: 'reorder', order: fullOrder(local.order, portal.order) })
    if (d.order === 'portal') await setLocal({ operation: 'reorder', order: fullOrder(portal.order, local.order) })
    if (kind === 'type' && d.default === 'local' && local.default !== null && portal.order.includes(local.default)) await sendPortal({ operation: 'default', id: local.default })
    if (kind === 'type' && d.default === 'portal' && portal.default !== null && local.order.includes(portal.default)) await setLocal({ operation: 'default', id: portal.default })
    const after = layoutOf(list(t), [], '')
    await writeBase(c, baseId, { order: after.order, default: after.default, retired: {} })
  }
}
