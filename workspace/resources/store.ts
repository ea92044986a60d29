// Resources: the registry that monitors, alerts and log senders target.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../core/index.ts'
import { ConflictError, NotFoundError } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail, type DetailItem } from '../../core/index.ts'

export interface ResourceInput {
  external_id: string
  name: string
  kind?: string
  status?: string
  provider?: string
  environment?: string
  description?: string
  public_url?: string
  details?: Record<string, string>
  sticker?: string
  tags?: string[]
}

export type ResourcePatch = { [K in Exclude<keyof ResourceInput, 'external_id'>]?: ResourceInput[K] | null }

export interface Resource {
  id: string
  workspace_id: string
  external_id: string
  name: string
  kind: string
  status: string
  provider: string
  environment: string
  description: string
  public_url: string
  details: Record<string, string>
  sticker: string
  tags: string[]
  /** Services this resource is associated with, oldest association first. */
  service_ids: string[]
  revision: number
  created_at: string
  updated_at: string
}

const DEFAULTS = {
  kind: 'other', status: 'active', provider: '', environment: '', description: '', public_url: '',
  details: {} as Record<string, string>, sticker: 'auto', tags: [] as string[],
}

const EDITABLE = ['name', 'kind', 'status', 'provider', 'environment', 'description', 'public_url', 'details', 'sticker', 'tags'] as const

interface Row extends Omit<Resource, 'created_at' | 'updated_at' | 'service_ids'> {
  created_at: Date
  updated_at: Date
}

function toResource(r: Row, serviceIds: string[] = []): Resource {
  return { ...r, service_ids: serviceIds, created_at: new Date(r.created_at).toISOString(), updated_at: new Date(r.updated_at).toISOString() }
}

/** The rows as resources, each with its service associations (one query for the lot). */
async function withServices(db: Sql, rows: Row[]): Promise<Resource[]> {
  if (rows.length === 0) return []
  const r = await db.query<{ resource_id: string; service_id: string }>(
    'SELECT resource_id, service_id FROM resource_services WHERE resource_id = ANY($1::uuid[]) ORDER BY created_at, service_id',
    [rows.map((x) => x.id)])
  const by = new Map<string, string[]>()
  for (const a of r.rows) {
    const list = by.get(a.resource_id) ?? []
    list.push(a.service_id)
    by.set(a.resource_id, list)
  }
  return rows.map((x) => toResource(x, by.get(x.id) ?? []))
}

const PORT_RE = /^\d{1,5}$/

/** The typed keys of `details` carry values of a known shape. */
export function checkDetails(details: Record<string, string> | null | undefined, where: (string | number)[]): void {
  if (details == null) return
  const problems: DetailItem[] = []
  const port = (v: string) => PORT_RE.test(v) && Number(v) >= 1 && Number(v) <= 65535
  for (const [k, v] of Object.entries(details)) {
    const loc = [...where, k]
    if (k === 'service_ports' && !v.split(',').every((p) => port(p.trim()))) {
      problems.push(detail(loc, 'service_ports must be comma-separated ports 1..65535', 'value_error', v))
    } else if (k === 'database_port' && !port(v)) {
      problems.push(detail(loc, 'database_port must be a port 1..65535', 'value_error', v))
    } else if (k === 'database_tls' && v !== 'required' && v !== 'disabled') {
      problems.push(detail(loc, "database_tls must be 'required' or 'disabled'", 'value_error', v))
    } else if (/pass(word)?|secret|token|private_key|credential/i.test(k)) {
      problems.push(detail(loc, 'details are workspace-visible: never put credentials here', 'value_error'))
    }
  }
  if (problems.length > 0) throw new RequestInvalid(problems)
}

function normalized(input: ResourceInput): Omit<Resource, 'id' | 'workspace_id' | 'revision' | 'created_at' | 'updated_at' | 'service_ids'> {
  return {
    external_id: input.external_id,
    name: input.name,
    kind: input.kind ?? DEFAULTS.kind,
    status: input.status ?? DEFAULTS.status,
    provider: input.provider ?? DEFAULTS.provider,
    environment: input.environment ?? DEFAULTS.environment,
    description: input.description ?? DEFAULTS.description,
    public_url: input.public_url ?? DEFAULTS.public_url,
    details: input.details ?? DEFAULTS.details,
    sticker: input.sticker ?? DEFAULTS.sticker,
    tags: input.tags ?? DEFAULTS.tags,
  }
}

// jsonb does not keep the key order it was given: compare details with sorted keys.
const comparable = (v: unknown): string => JSON.stringify(v !== null && typeof v === 'object' && !Array.isArray(v)
  ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
  : v)

function sameContent(a: ReturnType<typeof normalized>, b: Resource): boolean {
  for (const k of EDITABLE) if (comparable(a[k]) !== comparable(b[k])) return false
  return true
}

/** 201 created, 200 identical registration exists, 409 the external id is registered differently. */
export async function registerResource(db: Sql, workspaceId: string, input: ResourceInput): Promise<{ created: boolean; resource: Resource }> {
  checkDetails(input.details, ['body', 'details'])
  const v = normalized(input)
  const id = randomUUID()
  const ins = await db.query<Row>(
    `INSERT INTO resources (id, workspace_id, external_id, name, kind, status, provider, environment, description, public_url, details, sticker, tags)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (workspace_id, external_id) DO NOTHING RETURNING *`,
    [id, workspaceId, v.external_id, v.name, v.kind, v.status, v.provider, v.environment, v.description, v.public_url,
      JSON.stringify(v.details), v.sticker, v.tags])
  if (ins.rows[0] !== undefined) return { created: true, resource: toResource(ins.rows[0]) }
  const existing = await db.query<Row>('SELECT * FROM resources WHERE workspace_id = $1 AND external_id = $2', [workspaceId, v.external_id])
  const found = (await withServices(db, existing.rows))[0] as Resource
  if (!sameContent(v, found)) throw new ConflictError(`external_id ${v.external_id} is already registered with different content`)
  return { created: false, resource: found }
}

export async function getResource(db: Sql, workspaceId: string, id: string): Promise<Resource> {
  const r = await db.query<Row>('SELECT * FROM resources WHERE workspace_id = $1 AND id = $2', [workspaceId, id])
  if (r.rows[0] === undefined) throw new NotFoundError('resource')
  return (await withServices(db, r.rows))[0] as Resource
}

/** What other stages need to name resources (external id, name, kind), by id, for those of the ids registered in the workspace. */
export async function resourceSummaries(db: Sql, workspaceId: string, ids: readonly string[]): Promise<Map<string, { external_id: string; name: string; kind: string }>> {
  const r = await db.query<{ id: string; external_id: string; name: string; kind: string }>(
    'SELECT id, external_id, name, kind FROM resources WHERE workspace_id = $1 AND id = ANY($2::uuid[])', [workspaceId, [...ids]])
  return new Map(r.rows.map((x) => [x.id, { external_id: x.external_id, name: x.name, kind: x.kind }]))
}

/** The ids of the resources registered under these external ids, by external id (the portal names resources that way). */
export async function resourceIdsByExternalId(db: Sql, workspaceId: string, externalIds: readonly string[]): Promise<Map<string, string>> {
  if (externalIds.length === 0) return new Map()
  const r = await db.query<{ id: string; external_id: string }>(
    'SELECT id, external_id FROM resources WHERE workspace_id = $1 AND external_id = ANY($2::text[])', [workspaceId, [...externalIds]])
  return new Map(r.rows.map((x) => [x.external_id, x.id]))
}

export async function resourceExists(db: Sql, workspaceId: string, id: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM resources WHERE workspace_id = $1 AND id = $2', [workspaceId, id])
  return r.rows.length > 0
}

/** Null fields are left as they are; the revision goes up by one. Retiring keeps the record and its logs. */
export async function updateResource(db: Sql, workspaceId: string, id: string, patch: ResourcePatch): Promise<Resource> {
  checkDetails(patch.details, ['body', 'details'])
  const sets: string[] = []
  const params: unknown[] = [workspaceId, id]
  for (const k of EDITABLE) {
    const value = patch[k]
    if (value === undefined || value === null) continue
    params.push(k === 'details' ? JSON.stringify(value) : value)
    sets.push(`${k} = $${params.length}`)
  }
  const r = await db.query<Row>(
    `UPDATE resources SET ${sets.join(', ')}${sets.length > 0 ? ', ' : ''}revision = revision + ${sets.length > 0 ? 1 : 0}, updated_at = ${sets.length > 0 ? 'now()' : 'updated_at'}
     WHERE workspace_id = $1 AND id = $2 RETURNING *`, params)
  if (r.rows[0] === undefined) throw new NotFoundError('resource')
  return (await withServices(db, r.rows))[0] as Resource
}

/**
 * Associates the resource with an existing service of the same workspace;
 * repeating it changes nothing, and other associations are kept.
 */
export async function associateService(db: Sql, workspaceId: string, resourceId: string, serviceId: string): Promise<Resource> {
  await db.query(
    `INSERT INTO resource_services (workspace_id, resource_id, service_id)
     SELECT $1, r.id, s.id FROM resources r, services s
     WHERE r.workspace_id = $1 AND r.id = $2 AND s.workspace_id = $1 AND s.id = $3
     ON CONFLICT (resource_id, service_id) DO NOTHING`, [workspaceId, resourceId, serviceId])
  const resource = await getResource(db, workspaceId, resourceId)
  if (!resource.service_ids.includes(serviceId)) throw new NotFoundError('service')
  return resource
}

export interface Page<T> {
  items: T[]
  next_cursor: string | null
}

/** Keyset page in creation order; `grant` null means every resource. */
export async function listResources(
  db: Sql, workspaceId: string, grant: readonly string[] | null, limit: number,
  after: [string, string] | null, externalId?: string,
): Promise<{ items: Resource[]; last: [string, string] | null }> {
  const params: unknown[] = [workspaceId]
  let where = 'workspace_id = $1'
  if (grant !== null) {
    params.push(grant)
    where += ` AND id = ANY($${params.length}::uuid[])`
  }
  if (externalId !== undefined) {
    params.push(externalId)
    where += ` AND external_id = $${params.length}`
  }
  if (after !== null) {
    params.push(after[0], after[1])
    where += ` AND (created_at, id) > ($${params.length - 1}::timestamptz, $${params.length}::uuid)`
  }
  params.push(limit + 1)
  const r = await db.query<Row & { ckey: string }>(
    `SELECT *, ${CREATED_KEY} AS ckey FROM resources WHERE ${where} ORDER BY created_at, id LIMIT $${params.length}`, params)
  const rows = r.rows.slice(0, limit)
  const more = r.rows.length > limit
  const lastRow = rows[rows.length - 1]
  return {
    items: await withServices(db, rows.map(({ ckey: _k, ...row }) => row)),
    last: more && lastRow !== undefined ? [lastRow.ckey, lastRow.id] : null,
  }
}

// timestamptz keeps microseconds and Date only milliseconds: the cursor keeps the exact text.
const CREATED_KEY = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
