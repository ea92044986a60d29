// The shared workspace id (desktop spec: "the shared workspace id equals the
// portal UUID"): a desktop workspace connected to a portal is presented under
// the portal's workspace uuid, while its local id stays the storage key of
// every stage (tokens, resources, log rows, sealed secrets, senders' URLs).
// The edge translates once per request: shared → local on the way in, local →
// shared on the way out (api/edge/shared-workspace.ts). The pairs are few and
// change only on connect and disconnect, so they are read once per database
// handle and forgotten when they change.
import type { Sql } from '../../core/index.ts'
import { ConflictError } from '../../core/index.ts'

export interface SharedIds {
  /** shared (portal) id → local id */
  readonly toLocal: ReadonlyMap<string, string>
  /** local id → shared (portal) id */
  readonly toShared: ReadonlyMap<string, string>
}

const cache = new WeakMap<object, Promise<SharedIds>>()

async function load(db: Sql): Promise<SharedIds> {
  const r = await db.query<{ id: string; shared_id: string }>('SELECT id, shared_id FROM workspaces WHERE shared_id IS NOT NULL')
  return { toLocal: new Map(r.rows.map((x) => [x.shared_id, x.id])), toShared: new Map(r.rows.map((x) => [x.id, x.shared_id])) }
}

/** The connected workspaces' id pairs, read once per database handle. */
export function sharedIds(db: Sql): Promise<SharedIds> {
  let p = cache.get(db)
  if (p === undefined) {
    p = load(db)
    cache.set(db, p)
    p.catch(() => cache.delete(db))
  }
  return p
}

/** After a change committed (connect, disconnect): the next request reads the pairs again. */
export function forgetSharedIds(db: Sql): void {
  cache.delete(db)
}

/**
 * Presents a workspace under a shared id (null: under its own id again), inside
 * the caller's transaction. One local workspace per shared id: a second local
 * workspace naming the same portal workspace is refused.
 */
export async function setSharedId(tx: Sql, workspaceId: string, sharedId: string | null): Promise<void> {
  const shared = sharedId === null ? null : sharedId.toLowerCase()
  if (shared !== null) {
    const other = await tx.query<{ id: string }>('SELECT id FROM workspaces WHERE shared_id = $1 AND id <> $2', [shared, workspaceId])
    if (other.rows.length > 0) throw new ConflictError(`the portal workspace ${shared} is already shared by the local workspace ${other.rows[0]?.id}`)
  }
  await tx.query('UPDATE workspaces SET shared_id = $2 WHERE id = $1 AND shared_id IS DISTINCT FROM $2', [workspaceId, shared])
}

/** The local id a request names: a shared id becomes its local workspace; anything else is returned as is. */
export function localIdOf(ids: SharedIds, named: string): string {
  return ids.toLocal.get(named.toLowerCase()) ?? named
}
