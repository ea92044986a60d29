// Turns monitoring request bodies into the monitor stage's NewCheck/CheckPatch,
// with the checks a schema cannot express (per-kind configuration, credential
// references, location rules, source ids) reported at their place in the body.
import { parseTextQuery, TextSyntaxError } from '../../query/index.ts'
import { ALL_LOCATIONS, defaultLocation, locationRefusal, parseConfig, parseCredentialRef, sourceOnResource, type CheckConfig, type CheckPatch, type CheckRow, type ConfigIssue, type CredentialRef, type Kind, type Location, type NewCheck } from '../../monitor/index.ts'
import type { Sql } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail, toDetails, type DetailItem } from '../../core/index.ts'

/** Where the body's parts are, so one converter serves the cloud and desktop shapes. */
export interface Places {
  status: 400 | 422
  kind: (string | number)[]
  location: (string | number)[]
  configuration: (string | number)[]
  credential: (string | number)[]
  sourceId: (string | number)[]
}

export const CLOUD_PLACES: Places = {
  status: 422, kind: ['body', 'kind'], location: ['body', 'location'], configuration: ['body', 'configuration'],
  credential: ['body', 'credential'], sourceId: ['body', 'source_id'],
}
export const DESKTOP_PLACES: Places = {
  status: 400, kind: ['body', 'config', 'kind'], location: ['body', 'config', 'location'], configuration: ['body', 'config'],
  credential: ['body', 'config', 'credential'], sourceId: ['body', 'config', 'source_id'],
}

function at(prefix: (string | number)[], issues: readonly ConfigIssue[]): DetailItem[] {
  const base = '/' + prefix.slice(1).map(String).join('/')
  return toDetails(issues.map((i) => ({ ...i, instancePath: base + i.instancePath })), 'body')
}

export class Problems {
  readonly items: DetailItem[] = []
  readonly #places: Places

  constructor(places: Places) {
    this.#places = places
  }

  add(...items: DetailItem[]): void {
    this.items.push(...items)
  }

  config(kind: Kind, input: unknown): CheckConfig | null {
    const r = parseConfig(kind, input)
    if (!r.ok) {
      this.add(...at(this.#places.configuration, r.issues))
      return null
    }
    // A log check's text query speaks the search route's language: what the route refuses
    // (field:value, *, regular expressions) is refused here, not left to fail every evaluation.
    const q = kind === 'log' ? (r.config.stored.query as { q?: string } | undefined)?.q : undefined
    if (q !== undefined) {
      try {
        parseTextQuery(q)
      } catch (err) {
        if (!(err instanceof TextSyntaxError)) throw err
        this.add(...at(this.#places.configuration, [{ instancePath: '/query/q', keyword: 'value_error', params: {}, message: err.message, data: q }]))
        return null
      }
    }
    return r.config
  }

  credential(input: unknown): CredentialRef | null {
    const r = parseCredentialRef(input)
    if (r.ok) return r.ref
    this.add(...at(this.#places.credential, r.issues))
    return null
  }

  location(kind: Kind, location: unknown): Location {
    const loc = (location ?? defaultLocation(kind)) as Location
    if (!(ALL_LOCATIONS as readonly unknown[]).includes(loc)) {
      this.add(detail(this.#places.location, `location must be one of ${ALL_LOCATIONS.join(', ')}`, 'enum', loc))
      return defaultLocation(kind)
    }
    const refused = locationRefusal(kind, loc)
    if (refused !== null) this.add(detail(this.#places.location, refused, 'value_error', loc))
    return loc
  }

  /** An SSH tunnel uses the workspace's runtime secrets: only the managed runtime (location neura) has them. */
  tunnel(location: Location, stored: Record<string, unknown> | undefined): void {
    if (stored?.ssh === true && location !== 'neura') {
      this.add(detail([...this.#places.configuration, 'ssh'], 'ssh tunnels are run by the managed runtime: the check needs location neura', 'value_error', true))
    }
  }

  async source(db: Sql, ws: string, rid: string, id: string | null | undefined): Promise<void> {
    if (id == null) return
    if (!(await sourceOnResource(db, ws, rid, id))) this.add(detail(this.#places.sourceId, 'no enrolled monitor source of this resource has this id', 'value_error', id))
  }

  throwIfAny(): void {
    if (this.items.length > 0) throw new RequestInvalid(this.items, this.#places.status)
  }
}

/** The cloud MonitorChange body (every field optional and nullable). */
export interface MonitorChange {
  id?: string | null
  name?: string | null
  kind?: Kind | null
  location?: Location | null
  configuration?: Record<string, unknown> | null
  source_id?: string | null
  credential?: Record<string, unknown> | null
  enabled?: boolean | null
  required?: boolean | null
  maintenance_until?: string | null
}

export async function cloudNewCheck(db: Sql, ws: string, rid: string, b: MonitorChange): Promise<NewCheck> {
  const p = new Problems(CLOUD_PLACES)
  if (b.name == null) p.add(detail(['body', 'name'], 'Field required to create a check', 'missing'))
  // Without a kind nothing else can be judged; a missing name is reported with the configuration's problems.
  if (b.kind == null) {
    p.add(detail(['body', 'kind'], 'Field required to create a check', 'missing'))
    p.throwIfAny()
  }
  const kind = b.kind as Kind
  const location = p.location(kind, b.location)
  const config = p.config(kind, b.configuration ?? {})
  const credential = b.credential == null ? null : p.credential(b.credential)
  p.tunnel(location, config?.stored)
  await p.source(db, ws, rid, b.source_id)
  p.throwIfAny()
  return {
    id: b.id ?? undefined, workspaceId: ws, resourceId: rid, name: b.name as string, kind, location, config: config as CheckConfig,
    credential, sourceId: b.source_id ?? null, enabled: b.enabled ?? true, required: b.required ?? true,
    maintenanceUntil: b.maintenance_until == null ? null : Date.parse(b.maintenance_until), runNow: true,
  }
}

/** Null and absent fields keep their value; `credential: {}` removes the reference. */
export async function cloudPatch(db: Sql, row: CheckRow, b: MonitorChange): Promise<CheckPatch> {
  const p = new Problems(CLOUD_PLACES)
  const patch: CheckPatch = {}
  const kind = b.kind ?? row.kind
  if (b.name != null) patch.name = b.name
  if (b.kind != null) patch.kind = b.kind
  const kindChanged = b.kind != null && b.kind !== row.kind
  if (b.location != null || kindChanged) patch.location = p.location(kind, b.location ?? (kindChanged ? null : row.location))
  if (b.configuration != null || b.kind != null) {
    const config = p.config(kind, b.configuration ?? row.configuration)
    if (config !== null) patch.config = config
  }
  p.tunnel(patch.location ?? row.location, patch.config?.stored ?? row.configuration)
  if (b.credential != null) patch.credential = Object.keys(b.credential).length === 0 ? null : p.credential(b.credential)
  if (b.source_id != null) {
    await p.source(db, row.workspace_id, row.resource_id, b.source_id)
    patch.sourceId = b.source_id
  }
  if (b.enabled != null) patch.enabled = b.enabled
  if (b.required != null) patch.required = b.required
  if (b.maintenance_until != null) patch.maintenanceUntil = Date.parse(b.maintenance_until)
  p.throwIfAny()
  return patch
}

/** The desktop check body: `config` holds kind, the optional credential and location, and the kind's keys. */
export interface DesktopCheckBody {
  resource_id: string
  name: string
  required: boolean
  config: { kind: Kind; credential?: unknown; location?: Location } & Record<string, unknown>
  id?: string
  revision?: number
}

export function desktopFields(b: DesktopCheckBody): { kind: Kind; location: Location; config: CheckConfig; credential: CredentialRef | null } {
  const p = new Problems(DESKTOP_PLACES)
  const { kind, credential: cred, location: loc, ...rest } = b.config
  const location = p.location(kind, loc)
  const config = p.config(kind, rest)
  const credential = cred === undefined || cred === null ? null : p.credential(cred)
  p.tunnel(location, config?.stored)
  p.throwIfAny()
  return { kind, location, config: config as CheckConfig, credential }
}
