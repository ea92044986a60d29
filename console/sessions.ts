// Console sessions: a random session id in an HttpOnly cookie, only its
// SHA-256 in PostgreSQL, mapped to the token the user signed in with (never
// the token's secret). One-time sign-in codes work the same way and are
// deleted as they are redeemed.
import { createHash, randomBytes } from 'node:crypto'
import type { Sql } from '../core/index.ts'

/** The SQL port this stage needs: core's. */
export type ConsoleSql = Pick<Sql, 'query'>

export const SESSION_COOKIE = 'lookout_session'
/** A session lasts this long from sign-in (the token's revocation ends it sooner). */
export const SESSION_TTL_MS = 12 * 3_600_000
/** A sign-in link is good for this long, once. */
export const CODE_TTL_MS = 10 * 60_000

const ID_RE = /^[A-Za-z0-9_-]{43}$/

function hash(secret: string): Buffer {
  return createHash('sha256').update(secret).digest()
}

export class ConsoleSessions {
  readonly #db: ConsoleSql
  readonly #now: () => number

  constructor(db: ConsoleSql, now: () => number = Date.now) {
    this.#db = db
    this.#now = now
  }

  /** A one-time sign-in code for a token; returned once, stored hashed. */
  async createCode(tokenId: string): Promise<string> {
    const code = randomBytes(32).toString('base64url')
    await this.#db.query('INSERT INTO console_signin_codes (code_hash, token_id, expires_at) VALUES ($1, $2, $3)',
      [hash(code), tokenId, new Date(this.#now() + CODE_TTL_MS)])
    return code
  }

  /** The token a code stands for, consumed: a second redemption finds nothing. */
  async redeemCode(code: string): Promise<string | null> {
    if (!ID_RE.test(code)) return null
    const r = await this.#db.query<{ token_id: string; expires_at: Date }>(
      'DELETE FROM console_signin_codes WHERE code_hash = $1 RETURNING token_id, expires_at', [hash(code)])
    const row = r.rows[0]
    if (row === undefined || new Date(row.expires_at).getTime() <= this.#now()) return null
    return row.token_id
  }

  /** Opens a session for a token; the returned id goes into the cookie and nowhere else. */
  async open(tokenId: string): Promise<{ id: string; expiresAt: Date }> {
    const id = randomBytes(32).toString('base64url')
    const expiresAt = new Date(this.#now() + SESSION_TTL_MS)
    // Expired rows go on the way (sessions are few; the index on expires_at keeps this cheap).
    await this.#db.query('DELETE FROM console_sessions WHERE expires_at <= $1', [new Date(this.#now())])
    await this.#db.query('DELETE FROM console_signin_codes WHERE expires_at <= $1', [new Date(this.#now())])
    await this.#db.query('INSERT INTO console_sessions (id_hash, token_id, expires_at) VALUES ($1, $2, $3)', [hash(id), tokenId, expiresAt])
    return { id, expiresAt }
  }

  /** The token of a live session, or null (unknown, malformed or expired). */
  async tokenOf(sessionId: string): Promise<string | null> {
    if (!ID_RE.test(sessionId)) return null
    const r = await this.#db.query<{ token_id: string; expires_at: Date }>(
      'SELECT token_id, expires_at FROM console_sessions WHERE id_hash = $1', [hash(sessionId)])
    const row = r.rows[0]
    if (row === undefined || new Date(row.expires_at).getTime() <= this.#now()) return null
    return row.token_id
  }

  async close(sessionId: string): Promise<void> {
    if (ID_RE.test(sessionId)) await this.#db.query('DELETE FROM console_sessions WHERE id_hash = $1', [hash(sessionId)])
  }

  /** Ends every session of a token (it was revoked). */
  async closeToken(tokenId: string): Promise<void> {
    await this.#db.query('DELETE FROM console_sessions WHERE token_id = $1', [tokenId])
  }
}

/** The value of one cookie in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}
