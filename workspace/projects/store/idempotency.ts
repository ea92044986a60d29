// Idempotent mutations: the key, a hash of the request and the response are
// written in the same transaction as the change, so a replay (after a retry, a
// restart or a crash) returns the original body, and a failed change leaves no
// record behind (its retry runs again).
import { createHash } from 'node:crypto'
import type { Database, Sql } from '../../../core/index.ts'
import { IdempotencyConflictError } from '../../errors.ts'

export interface Outcome<T> {
  status: number
  body: T
  replay: boolean
}

/** JSON with object keys sorted, so equal content hashes equal. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null'
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  const o = v as Record<string, unknown>
  return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`
}

export function requestHash(scope: string, body: unknown): string {
  return createHash('sha256').update(scope).update('\n').update(canonicalJson(body)).digest('hex')
}

/**
 * Runs `fn` once per (workspace, key). `scope` names the operation and its
 * target (e.g. `task.create`, `item.patch:<id>`): the same key on another
 * operation is a conflict too. A replay answers 200 with the stored body.
 */
export async function idempotent<T>(
  db: Database, workspaceId: string, key: string, scope: string, request: unknown,
  fn: (tx: Sql) => Promise<{ status: number; body: T }>,
): Promise<Outcome<T>> {
  const hash = requestHash(scope, request)
  return db.transaction(async (tx) => {
    // On a server, a concurrent holder of the key makes this wait for its commit.
    const claimed = await tx.query(
      `INSERT INTO project_idempotency (workspace_id, key, scope, request_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, key) DO NOTHING RETURNING key`, [workspaceId, key, scope, hash])
    if (claimed.rows.length === 0) {
      const r = await tx.query<{ scope: string; request_hash: string; response: string | null }>(
        'SELECT scope, request_hash, response FROM project_idempotency WHERE workspace_id = $1 AND key = $2', [workspaceId, key])
      const prior = r.rows[0]
      if (prior === undefined || prior.request_hash !== hash || prior.response === null) throw new IdempotencyConflictError()
      return { status: 200, body: JSON.parse(prior.response) as T, replay: true }
    }
    const out = await fn(tx)
    await tx.query('UPDATE project_idempotency SET status = $3, response = $4 WHERE workspace_id = $1 AND key = $2',
      [workspaceId, key, out.status, JSON.stringify(out.body)])
    return { ...out, replay: false }
  })
}
