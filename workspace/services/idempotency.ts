// Idempotency keys of the service and time-entry operations, stored durably
// with the response: the first request does the work (201 or 200), a replay
// with the same content gets 200 and the same body, the same key with other
// content gets 409. The key row and the operation commit in one transaction,
// so a failed operation leaves no key behind, and a concurrent duplicate waits
// on the key's unique index until the first commits.
import { createHash } from 'node:crypto'
import type { Database, Sql } from '../../core/index.ts'
import { ConflictError } from '../../core/index.ts'

export interface Outcome<T> {
  status: number
  body: T
}

/** A stable hash of a JSON value: object keys sorted, undefined left out. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('hex')
}

function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null'
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  const o = v as Record<string, unknown>
  return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`
}

export async function idempotent<T>(
  db: Database, workspaceId: string, key: string, operation: string, request: unknown,
  run: (tx: Sql) => Promise<Outcome<T>>,
): Promise<Outcome<T>> {
  const hash = contentHash({ operation, request })
  return db.transaction(async (tx) => {
    const claimed = await tx.query(
      `INSERT INTO service_operations (workspace_id, idempotency_key, operation, request_hash)
       VALUES ($1, $2, $3, $4) ON CONFLICT (workspace_id, idempotency_key) DO NOTHING RETURNING 1`,
      [workspaceId, key, operation, hash])
    if (claimed.rows.length === 0) {
      const prev = await tx.query<{ request_hash: string; response: T }>(
        'SELECT request_hash, response FROM service_operations WHERE workspace_id = $1 AND idempotency_key = $2', [workspaceId, key])
      const row = prev.rows[0]
      if (row === undefined || row.request_hash !== hash) {
        throw new ConflictError(`idempotency_key ${key} was already used for a different request`)
      }
      return { status: 200, body: row.response }
    }
    const out = await run(tx)
    await tx.query(
      'UPDATE service_operations SET status_code = $3, response = $4 WHERE workspace_id = $1 AND idempotency_key = $2',
      [workspaceId, key, out.status, JSON.stringify(out.body)])
    return out
  })
}
