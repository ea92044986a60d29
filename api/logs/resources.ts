// The resource a log route names, and whether it is registered: shared by the
// ingest and query route groups (one remembered set per route group).
import type { FastifyRequest } from 'fastify'
import type { Sql } from '../../core/index.ts'
import { NotFoundError } from '../../core/index.ts'
import { resourceExists } from '../../workspace/index.ts'

const KNOWN_RESOURCES_MAX = 10_000

/** The workspace and resource of a `/v1/workspaces/:workspace_id/resources/:resource_id/…` route. */
export function target(req: FastifyRequest): { ws: string; rid: string } {
  const p = req.params as { workspace_id: string; resource_id: string }
  return { ws: p.workspace_id, rid: p.resource_id }
}

/** Whether a resource is registered in a workspace (404 otherwise); resources are never deleted, so a positive answer is remembered. */
export class KnownResources {
  readonly #db: Sql
  readonly #known = new Set<string>()

  constructor(db: Sql) {
    this.#db = db
  }

  async ensure(ws: string, rid: string): Promise<void> {
    const key = ws + '/' + rid
    if (this.#known.has(key)) return
    if (!(await resourceExists(this.#db, ws, rid))) throw new NotFoundError('resource')
    if (this.#known.size >= KNOWN_RESOURCES_MAX) this.#known.clear()
    this.#known.add(key)
  }
}
