// Top values of a field over the filtered lines: severity, a log attribute or
// a resource attribute, most frequent first, with the rest summed as "other".
// One GROUP BY statement; the total comes along as a window sum over the groups.
import type { LogStore, QueryParams } from '../ingest/index.ts'
import type { LogFilter } from './filters.ts'
import { HISTOGRAM_LEVELS, LEVEL_SQL } from './histogram.ts'
import { filterConditions, searchSettings } from './sql.ts'

export const FACET_MAX_LIMIT = 100
export const FACET_DEFAULT_LIMIT = 10
/** The field parameter: severity, attr.<key> or resource.<key>. */
export const FACET_FIELD_PATTERN = '^(severity|(attr|resource)\\..+)$'

export type FacetField = { kind: 'severity' } | { kind: 'attr' | 'resource'; key: string }

export interface Facets {
  field: string
  /** Most frequent first (ties by value). */
  values: { value: string; count: number }[]
  /** Lines with the field whose value is not among `values`. */
  other: number
  /** Lines matching the filters that have the field (every line has a severity; UNSET when it has no known level). */
  total: number
}

/** The field a `field` parameter names; null when it names none. */
export function facetFieldOf(field: string): FacetField | null {
  if (field === 'severity') return { kind: 'severity' }
  const m = /^(attr|resource)\.(.+)$/s.exec(field)
  return m === null ? null : { kind: m[1] as 'attr' | 'resource', key: m[2] as string }
}

export async function logFacets(store: LogStore, f: LogFilter, field: string, limit: number): Promise<Facets> {
  const fld = facetFieldOf(field)
  if (fld === null) throw new Error(`not a facet field: ${field}`)
  const params: QueryParams = {}
  const where = filterConditions(f, params)
  let value: string
  if (fld.kind === 'severity') value = LEVEL_SQL
  else {
    const column = fld.kind === 'attr' ? 'attributes' : 'resource_attributes'
    params.fk = fld.key
    where.push(`mapContains(${column}, {fk:String})`)
    value = `${column}[{fk:String}]`
  }
  params.limit = limit
  const sql = `SELECT v, n, sum(n) OVER () AS total FROM (
      SELECT ${value} AS v, count() AS n FROM ${store.database}.logs WHERE ${where.join(' AND ')} GROUP BY v
    ) ORDER BY n DESC, v ASC LIMIT {limit:UInt32}${searchSettings(false)}`
  const r = await store.query<{ v: string | number; n: string | number; total: string | number }>(sql, params)
  const values = r.rows.map((row) => ({
    value: fld.kind === 'severity' ? (HISTOGRAM_LEVELS[Number(row.v)] ?? 'UNSET') : String(row.v),
    count: Number(row.n),
  }))
  const total = r.rows.length === 0 ? 0 : Number(r.rows[0]?.total)
  let shown = 0
  for (const v of values) shown += v.count
  return { field, values, other: total - shown, total }
}
