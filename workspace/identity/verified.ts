// The token verifiers that keep tokens of a database in memory, so that a
// revocation in this process reaches them before it returns (the trigger's
// NOTIFY reaches them too, but only after the commit, asynchronously).
import type { Sql } from '../../core/index.ts'

export interface TokenForgetter {
  forget(tokenId: string): void
}

const byDatabase = new WeakMap<Sql, Set<TokenForgetter>>()

export function registerVerifier(db: Sql, v: TokenForgetter): void {
  let set = byDatabase.get(db)
  if (set === undefined) byDatabase.set(db, (set = new Set()))
  set.add(v)
}

export function unregisterVerifier(db: Sql, v: TokenForgetter): void {
  byDatabase.get(db)?.delete(v)
}

export function forgetVerifiedToken(db: Sql, tokenId: string): void {
  const set = byDatabase.get(db)
  if (set !== undefined) for (const v of set) v.forget(tokenId)
}
