// Verified bearer tokens kept in memory, so an authenticated request costs no
// token query. A cached token still proves its secret on every request (its
// SHA-256, compared in constant time). Any change to a token row reaches the
// cache: a revocation in this process at once (verified.ts), every other path
// (another server, a cascade, an operator's SQL) through the tokens trigger's
// NOTIFY. While that subscription is down the cache is emptied and bypassed,
// so a missed notification cannot keep a revoked token alive; the TTL is a net
// under all of that, not the mechanism.
import { timingSafeEqual } from 'node:crypto'
import { InvalidOptionError } from '../../core/index.ts'
import type { Database } from '../../core/index.ts'
import { lookupToken, parseBearer, type Principal } from './tokens.ts'
import { registerVerifier, unregisterVerifier } from './verified.ts'

/** The channel of the tokens trigger (identity/migrations.ts, version 2). */
export const TOKEN_CHANGES_CHANNEL = 'lookout_token_changes'

export interface TokenVerifierOptions {
  /** Verified tokens kept, at most; the oldest goes first. Default 10,000; 0 turns caching off. */
  maxEntries?: number
  /** How long a verification is trusted without a notification, ms. Default 60,000. */
  ttlMs?: number
  /** Clock (tests). */
  now?: () => number
}

interface Entry {
  principal: Principal
  secretHash: Buffer
  until: number
}

export interface VerifierStats {
  hits: number
  misses: number
  entries: number
  /** The cache is in use: the change subscription is live. */
  listening: boolean
}

export class TokenVerifier {
  readonly #db: Database
  readonly #max: number
  readonly #ttlMs: number
  readonly #now: () => number
  readonly #entries = new Map<string, Entry>()
  #listening = false
  // Bumped by every forget: a lookup that overlapped one does not cache its answer.
  #epoch = 0
  #hits = 0
  #misses = 0
  #unlisten: (() => Promise<void>) | null = null

  constructor(db: Database, o: TokenVerifierOptions = {}) {
    const max = o.maxEntries ?? 10_000
    if (!Number.isInteger(max) || max < 0) throw new InvalidOptionError('maxEntries', 'must be an integer >= 0')
    const ttl = o.ttlMs ?? 60_000
    if (!(Number.isFinite(ttl) && ttl > 0)) throw new InvalidOptionError('ttlMs', 'must be a number > 0')
    this.#db = db
    this.#max = max
    this.#ttlMs = ttl
    this.#now = o.now ?? Date.now
  }

  /** Subscribes to token changes; until then (and without it) every verification asks the database. */
  async start(): Promise<void> {
    if (this.#max === 0 || this.#unlisten !== null) return
    registerVerifier(this.#db, this)
    this.#unlisten = await this.#db.listen(TOKEN_CHANGES_CHANNEL, {
      onPayload: (tokenId) => this.forget(tokenId),
      onLost: () => {
        this.#listening = false
        this.#clear()
      },
      onListening: () => {
        // Changes made while deaf are unknown: start empty.
        this.#clear()
        this.#listening = true
      },
    })
  }

  /** The principal a bearer token stands for, or null (malformed, unknown, wrong secret or revoked). */
  async verify(bearer: string): Promise<Principal | null> {
    const b = parseBearer(bearer)
    if (b === null) return null
    if (this.#listening) {
      const e = this.#entries.get(b.id)
      if (e !== undefined && e.until > this.#now() && timingSafeEqual(e.secretHash, b.secretHash)) {
        this.#hits++
        return e.principal
      }
    }
    this.#misses++
    const epoch = this.#epoch
    const p = await lookupToken(this.#db, b.id, b.secretHash)
    if (p !== null && this.#listening && epoch === this.#epoch) this.#remember(b.id, p, b.secretHash)
    return p
  }

  forget(tokenId: string): void {
    this.#epoch++
    this.#entries.delete(tokenId)
  }

  stats(): VerifierStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#entries.size, listening: this.#listening }
  }

  async close(): Promise<void> {
    unregisterVerifier(this.#db, this)
    this.#listening = false
    this.#clear()
    const unlisten = this.#unlisten
    this.#unlisten = null
    // The database may be closed already, and its subscriptions with it.
    await unlisten?.().catch(() => undefined)
  }

  #remember(id: string, principal: Principal, secretHash: Buffer): void {
    this.#entries.delete(id)
    if (this.#entries.size >= this.#max) {
      // Map order is insertion order: the first key is the oldest verification.
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
    this.#entries.set(id, { principal, secretHash, until: this.#now() + this.#ttlMs })
  }

  #clear(): void {
    this.#epoch++
    this.#entries.clear()
  }
}
