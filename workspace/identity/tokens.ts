// Bearer tokens: shown once at creation, kept only as a SHA-256 of the secret,
// looked up by their public id and compared in constant time.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import type { Sql } from '../../core/index.ts'
import { isScope, type Scope } from './scopes.ts'
import { BadRequestError, NotFoundError } from '../../core/index.ts'
import { forgetVerifiedToken } from './verified.ts'

// collector: a remote probe agent's credential, accepted only by the /v1/collector routes.
export const TOKEN_KINDS = { access: 'access', sender: 'sender', source: 'source', collector: 'collector' } as const
export type TokenKind = (typeof TOKEN_KINDS)[keyof typeof TOKEN_KINDS]

export interface Principal {
  tokenId: string
  workspaceId: string
  name: string
  kind: TokenKind
  scopes: ReadonlySet<string>
  /** null: every resource of the workspace. */
  resourceIds: readonly string[] | null
  staffId: number | null
}

export interface TokenInfo {
  id: string
  workspace_id: string
  name: string
  kind: TokenKind
  scopes: string[]
  resources: 'all' | string[]
  staff_id: number | null
  created_at: string
  revoked_at: string | null
}

export interface NewToken {
  workspaceId: string
  scopes: readonly string[]
  resources: 'all' | readonly string[]
  name?: string
  kind?: TokenKind
  staffId?: number | null
}

const PREFIX = 'lkt'
const TOKEN_RE = /^lkt_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest()
}

export function isUuid(s: string): boolean {
  return UUID_RE.test(s)
}

export async function createWorkspace(db: Sql, name: string): Promise<{ id: string; name: string }> {
  if (name.length < 1 || name.length > 160) throw new BadRequestError('workspace name must be 1..160 characters')
  const id = randomUUID()
  await db.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [id, name])
  return { id, name }
}

export async function listWorkspaces(db: Sql, ids?: readonly string[]): Promise<{ id: string; name: string; created_at: string }[]> {
  const r = ids === undefined
    ? await db.query<{ id: string; name: string; created_at: Date }>('SELECT id, name, created_at FROM workspaces ORDER BY created_at, id')
    : await db.query<{ id: string; name: string; created_at: Date }>('SELECT id, name, created_at FROM workspaces WHERE id = ANY($1::uuid[]) ORDER BY created_at, id', [ids])
  return r.rows.map((w) => ({ id: w.id, name: w.name, created_at: new Date(w.created_at).toISOString() }))
}

/** Creates a token and returns it once; only its hash is stored. */
export async function createToken(db: Sql, t: NewToken): Promise<{ id: string; token: string }> {
  if (!isUuid(t.workspaceId)) throw new BadRequestError('workspace must be a uuid')
  // The shared id (shared-ids.ts) names a connected desktop workspace too: `lookout workspace list` shows it.
  const ws = await db.query<{ id: string }>('SELECT id FROM workspaces WHERE id = $1 OR shared_id = $1', [t.workspaceId])
  const workspaceId = ws.rows[0]?.id
  if (workspaceId === undefined) throw new NotFoundError('workspace')
  for (const s of t.scopes) if (!isScope(s)) throw new BadRequestError(`unknown scope ${s}`)
  if (t.scopes.length === 0) throw new BadRequestError('a token needs at least one scope')
  if (t.resources !== 'all') for (const r of t.resources) if (!isUuid(r)) throw new BadRequestError(`resource ${r} is not a uuid`)
  if (t.staffId != null && !(Number.isInteger(t.staffId) && t.staffId > 0)) throw new BadRequestError('staff id must be an integer > 0')
  const uuid = randomUUID()
  const secret = randomBytes(32).toString('base64url')
  await db.query(
    `INSERT INTO tokens (id, workspace_id, name, kind, secret_hash, scopes, resource_ids, staff_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [uuid, workspaceId, t.name ?? '', t.kind ?? 'access', hashSecret(secret), [...new Set(t.scopes)],
      t.resources === 'all' ? null : [...t.resources], t.staffId ?? null])
  return { id: uuid, token: `${PREFIX}_${uuid.replaceAll('-', '')}_${secret}` }
}

/**
 * Revokes a token. Verifiers of this process forget it before this returns;
 * other processes hear of it from the tokens trigger's NOTIFY.
 */
export async function revokeToken(db: Sql, id: string, workspaceId?: string): Promise<boolean> {
  if (!isUuid(id)) return false
  const r = workspaceId === undefined
    ? await db.query('UPDATE tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id])
    : await db.query('UPDATE tokens SET revoked_at = now() WHERE id = $1 AND workspace_id = $2 AND revoked_at IS NULL', [id, workspaceId])
  forgetVerifiedToken(db, id)
  return r.rowCount > 0
}

interface TokenRow {
  id: string
  workspace_id: string
  name: string
  kind: TokenKind
  secret_hash: Uint8Array
  scopes: string[]
  resource_ids: string[] | null
  staff_id: number | null
  created_at: Date
  revoked_at: Date | null
}

export async function listTokens(db: Sql, workspaceId?: string): Promise<TokenInfo[]> {
  const r = workspaceId === undefined
    ? await db.query<TokenRow>('SELECT * FROM tokens ORDER BY created_at, id')
    : await db.query<TokenRow>('SELECT * FROM tokens WHERE workspace_id = $1 ORDER BY created_at, id', [workspaceId])
  return r.rows.map((t) => ({
    id: t.id,
    workspace_id: t.workspace_id,
    name: t.name,
    kind: t.kind,
    scopes: t.scopes,
    resources: t.resource_ids === null ? 'all' : t.resource_ids,
    staff_id: t.staff_id,
    created_at: new Date(t.created_at).toISOString(),
    revoked_at: t.revoked_at === null ? null : new Date(t.revoked_at).toISOString(),
  }))
}

/** A bearer token's parts: the token id and the SHA-256 of its secret; null when malformed. */
export function parseBearer(bearer: string): { id: string; secretHash: Buffer } | null {
  const m = TOKEN_RE.exec(bearer)
  if (m === null) return null
  const hex = m[1] as string
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  return { id, secretHash: hashSecret(m[2] as string) }
}

/** The principal of a parsed bearer token from the database, or null (unknown, wrong secret or revoked). */
export async function lookupToken(db: Sql, id: string, secretHash: Buffer): Promise<Principal | null> {
  const r = await db.query<TokenRow>('SELECT * FROM tokens WHERE id = $1', [id])
  const row = r.rows[0]
  // Compare even when the id is unknown, so timing does not tell ids apart.
  const stored = row === undefined ? Buffer.alloc(32) : Buffer.from(row.secret_hash)
  const same = stored.length === secretHash.length && timingSafeEqual(stored, secretHash)
  if (row === undefined || !same || row.revoked_at !== null) return null
  return principalOfRow(row)
}

/**
 * The principal of a token known by id alone, or null (unknown or revoked): for
 * a console session, which proved the secret when it signed in.
 */
export async function principalById(db: Sql, id: string): Promise<Principal | null> {
  if (!isUuid(id)) return null
  const r = await db.query<TokenRow>('SELECT * FROM tokens WHERE id = $1 AND revoked_at IS NULL', [id])
  const row = r.rows[0]
  return row === undefined ? null : principalOfRow(row)
}

function principalOfRow(row: TokenRow): Principal {
  return {
    tokenId: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    kind: row.kind,
    scopes: new Set(row.scopes),
    resourceIds: row.resource_ids,
    staffId: row.staff_id,
  }
}

/** The principal a bearer token stands for, or null (unknown, malformed or revoked); always asks the database. */
export async function verifyToken(db: Sql, bearer: string): Promise<Principal | null> {
  const b = parseBearer(bearer)
  return b === null ? null : lookupToken(db, b.id, b.secretHash)
}

export function hasScope(p: Principal, scope: Scope): boolean {
  return p.scopes.has(scope)
}

export function canReach(p: Principal, resourceId: string): boolean {
  return p.resourceIds === null || p.resourceIds.includes(resourceId)
}
