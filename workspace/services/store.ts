// Service records: create (idempotent), read, list, and partial edits guarded
// by the caller's observed updated_at. Creating a service never bills anything.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../core/index.ts'
import { ConflictError, NotFoundError } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'

export interface ServiceInput {
  name: string
  kind?: string
  lifecycle?: string | null
  owner_id?: number | null
  modules?: string[] | null
  description?: string
  public_url?: string
  active?: boolean | null
}

export interface ServicePatch {
  expected_updated_at: string
  name?: string | null
  kind?: string | null
  lifecycle?: string | null
  owner_id?: number | null
  modules?: string[] | null
  description?: string | null
  public_url?: string | null
  active?: boolean | null
}

export interface Service {
  id: string
  workspace_id: string
  name: string
  kind: string
  lifecycle: string
  owner_id: number | null
  modules: string[]
  description: string
  public_url: string
  active: boolean
  resource_ids: string[]
  created_by_staff_id: number | null
  revision: number
  created_at: string
  /** Microsecond ISO text: send it back as `expected_updated_at`. */
  updated_at: string
}

type Row = Omit<Service, 'resource_ids'>

// timestamptz keeps microseconds and Date only milliseconds: timestamps leave as exact text.
const ts = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
const COLUMNS = `id, workspace_id, name, kind, lifecycle, owner_id, modules, description, public_url, active,
  created_by_staff_id, revision, ${ts('created_at')} AS created_at, ${ts('updated_at')} AS updated_at`

export interface ServiceValues {
  name: string
  kind: string
  lifecycle: string
  owner_id: number | null
  modules: string[]
  description: string
  public_url: string
  active: boolean
}

/** Normalized create input: defaults applied, so equal operations hash equal. */
export function normalizeCreate(input: ServiceInput): ServiceValues {
  return {
    name: input.name,
    kind: input.kind ?? 'other',
    lifecycle: input.lifecycle ?? 'active',
    owner_id: input.owner_id ?? null,
    modules: [...new Set(input.modules ?? [])],
    description: input.description ?? '',
    public_url: input.public_url ?? '',
    active: input.active ?? true,
  }
}

async function withResources(db: Sql, rows: Row[]): Promise<Service[]> {
  if (rows.length === 0) return []
  const r = await db.query<{ service_id: string; resource_id: string }>(
    'SELECT service_id, resource_id FROM resource_services WHERE service_id = ANY($1::uuid[]) ORDER BY created_at, resource_id',
    [rows.map((s) => s.id)])
  const by = new Map<string, string[]>()
  for (const a of r.rows) {
    const list = by.get(a.service_id) ?? []
    list.push(a.resource_id)
    by.set(a.service_id, list)
  }
  return rows.map((s) => ({ ...s, resource_ids: by.get(s.id) ?? [] }))
}

export async function createService(db: Sql, workspaceId: string, input: ServiceValues, staffId: number | null): Promise<Service> {
  const r = await db.query<Row>(
    `INSERT INTO services (id, workspace_id, name, kind, lifecycle, owner_id, modules, description, public_url, active, created_by_staff_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
    [randomUUID(), workspaceId, input.name, input.kind, input.lifecycle, input.owner_id, input.modules,
      input.description, input.public_url, input.active, staffId])
  return { ...(r.rows[0] as Row), resource_ids: [] }
}

export async function getService(db: Sql, workspaceId: string, id: string): Promise<Service> {
  const r = await db.query<Row>(`SELECT ${COLUMNS} FROM services WHERE workspace_id = $1 AND id = $2`, [workspaceId, id])
  if (r.rows[0] === undefined) throw new NotFoundError('service')
  return (await withResources(db, r.rows))[0] as Service
}

export async function serviceExists(db: Sql, workspaceId: string, id: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM services WHERE workspace_id = $1 AND id = $2', [workspaceId, id])
  return r.rows.length > 0
}

const ISO_TS_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/i

const EDITABLE = ['name', 'kind', 'lifecycle', 'owner_id', 'modules', 'description', 'public_url', 'active'] as const

/**
 * Applies the non-null fields when the record's updated_at still equals the
 * caller's `expected_updated_at` (one conditional UPDATE); 409 otherwise.
 */
export async function updateService(db: Sql, workspaceId: string, id: string, patch: ServicePatch): Promise<Service> {
  if (!ISO_TS_RE.test(patch.expected_updated_at) || Number.isNaN(Date.parse(patch.expected_updated_at))) {
    throw new RequestInvalid([detail(['body', 'expected_updated_at'], 'Input should be the updated_at value (ISO 8601 with a time zone) the caller read', 'datetime_parsing', patch.expected_updated_at)])
  }
  const sets: string[] = []
  const params: unknown[] = [workspaceId, id, patch.expected_updated_at]
  for (const k of EDITABLE) {
    const v = patch[k]
    if (v === undefined || v === null) continue
    params.push(k === 'modules' ? [...new Set(v as string[])] : v)
    sets.push(`${k} = $${params.length}`)
  }
  const where = 'WHERE workspace_id = $1 AND id = $2 AND updated_at = $3::timestamptz'
  const r = sets.length === 0
    ? await db.query<Row>(`SELECT ${COLUMNS} FROM services ${where}`, params)
    : await db.query<Row>(
      `UPDATE services SET ${sets.join(', ')}, revision = revision + 1,
         updated_at = greatest(now(), updated_at + interval '1 microsecond') ${where} RETURNING ${COLUMNS}`, params)
  if (r.rows[0] === undefined) {
    if (!(await serviceExists(db, workspaceId, id))) throw new NotFoundError('service')
    throw new ConflictError('the service changed since expected_updated_at: read it again and retry with its updated_at')
  }
  return (await withResources(db, r.rows))[0] as Service
}

/** Keyset page in creation order, optionally filtered by a name substring. */
export async function listServices(
  db: Sql, workspaceId: string, limit: number, after: [string, string] | null, q: string,
): Promise<{ items: Service[]; last: [string, string] | null }> {
  const params: unknown[] = [workspaceId]
  let where = 'workspace_id = $1'
  if (q !== '') {
    params.push(`%${q.replace(/[\\%_]/g, (c) => '\\' + c)}%`)
    where += ` AND name ILIKE $${params.length}`
  }
  if (after !== null) {
    params.push(after[0], after[1])
    where += ` AND (services.created_at, id) > ($${params.length - 1}::timestamptz, $${params.length}::uuid)`
  }
  params.push(limit + 1)
  const r = await db.query<Row>(`SELECT ${COLUMNS} FROM services WHERE ${where} ORDER BY services.created_at, id LIMIT $${params.length}`, params)
  const rows = r.rows.slice(0, limit)
  const lastRow = rows[rows.length - 1]
  return {
    items: await withResources(db, rows),
    last: r.rows.length > limit && lastRow !== undefined ? [lastRow.created_at, lastRow.id] : null,
  }
}
