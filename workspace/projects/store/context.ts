// Who acts on which workspace's project: every store function takes one.
import type { Database } from '../../../core/index.ts'
import type { Principal } from '../../identity/tokens.ts'

export interface Actor {
  /** The credential's id ('owner' on the desktop owner socket). */
  tokenId: string
  /** The user the credential is bound to (its staff id), when it is. */
  userId: number | null
  owner: boolean
}

export interface ProjectCtx {
  db: Database
  workspaceId: string
  actor: Actor
}

export function actorOf(p: Principal, isOwner: boolean): Actor {
  return { tokenId: p.tokenId, userId: p.staffId, owner: isOwner }
}

/** Internal notes and comments are for staff: credentials bound to a user, and the owner. */
export function seesInternal(a: Actor): boolean {
  return a.owner || a.userId !== null
}

/** The actor as stored in activity entries and outbox events. */
export function actorJson(a: Actor): string {
  return JSON.stringify({ token_id: a.tokenId, user_id: a.userId, owner: a.owner })
}
