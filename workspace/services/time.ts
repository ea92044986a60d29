// Time entries against a service: explicit minutes, draft or posted, corrected
// and voided only with the observed revision and a reason. Every revision's
// values are kept in service_time_history, so corrections never lose history.
// Recording time never invoices anything.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../core/index.ts'
import { ConflictError, NotFoundError } from '../../core/index.ts'
import { TimeEntryVoidedError } from '../errors.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'

export interface TimeCreateInput {
  occurred_at: string
  minutes: number
  description: string
  internal_notes?: string
  task_id?: string | null
  staff_id?: number | null
  chargeable?: boolean
  state?: 'draft' | 'posted'
}

export interface TimeCorrectInput {
  revision: number
  reason: string
  occurred_at?: string | null
  minutes?: number | null
  description?: string | null
  internal_notes?: string | null
  task_id?: string | null
  staff_id?: number | null
  chargeable?: boolean | null
  state?: 'draft' | 'posted' | null
}

/** The values a revision holds. */
export interface TimeValues {
  state: string
  occurred_at: string
  minutes: number
  description: string
  internal_notes: string
  task_id: string | null
  staff_id: number | null
  chargeable: boolean
}

export interface TimeHistoryItem {
  revision: number
  action: 'create' | 'correct' | 'void'
  reason: string | null
  changed: string[]
  values: Partial<TimeValues>
  actor_staff_id: number | null
  at: string
}

export interface TimeEntry extends TimeValues {
  id: string
  workspace_id: string
  service_id: string
  revision: number
  created_by_staff_id: number | null
  created_at: string
  updated_at: string
  voided_at: string | null
  void_reason: string | null
  history: TimeHistoryItem[]
}

export interface Actor {
  staffId: number | null
  keyId: string
}

const VALUE_KEYS = ['state', 'occurred_at', 'minutes', 'description', 'internal_notes', 'task_id', 'staff_id', 'chargeable'] as const

const ts = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
const COLUMNS = `id, workspace_id, service_id, revision, state, ${ts('occurred_at')} AS occurred_at, minutes, description,
  internal_notes, task_id, staff_id, chargeable, created_by_staff_id, ${ts('created_at')} AS created_at,
  ${ts('updated_at')} AS updated_at, CASE WHEN voided_at IS NULL THEN NULL ELSE ${ts('voided_at')} END AS voided_at, void_reason`

type Row = Omit<TimeEntry, 'history'>

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/i

/** A calendar date (midnight UTC) or a timestamp with a time zone; null when neither. */
export function parseOccurredAt(s: string): string | null {
  if (DATE_RE.test(s)) {
    const d = new Date(`${s}T00:00:00Z`)
    return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s ? null : d.toISOString()
  }
  if (!DATETIME_RE.test(s)) return null
  const d = new Date(s.replace(' ', 'T'))
  return Number.isNaN(d.getTime()) ? null : s.replace(' ', 'T')
}

function occurredAt(s: string): string {
  const v = parseOccurredAt(s)
  if (v === null) {
    throw new RequestInvalid([detail(['body', 'occurred_at'], 'Input should be a date (YYYY-MM-DD) or a date-time with a time zone (ISO 8601)', 'datetime_parsing', s)])
  }
  return v
}

function valuesOf(r: Row): TimeValues {
  return {
    state: r.state, occurred_at: r.occurred_at, minutes: r.minutes, description: r.description,
    internal_notes: r.internal_notes, task_id: r.task_id, staff_id: r.staff_id, chargeable: r.chargeable,
  }
}

async function addHistory(tx: Sql, r: Row, action: TimeHistoryItem['action'], reason: string | null, changed: string[], actor: Actor): Promise<void> {
  await tx.query(
    `INSERT INTO service_time_history (entry_id, revision, action, reason, changed, snapshot, actor_staff_id, actor_key_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [r.id, r.revision, action, reason, changed, JSON.stringify(valuesOf(r)), actor.staffId, actor.keyId])
}

async function withHistory(db: Sql, rows: Row[]): Promise<TimeEntry[]> {
  if (rows.length === 0) return []
  const h = await db.query<{ entry_id: string; revision: number; action: TimeHistoryItem['action']; reason: string | null; changed: string[]; snapshot: TimeValues; actor_staff_id: number | null; at: string }>(
    `SELECT entry_id, revision, action, reason, changed, snapshot, actor_staff_id, ${ts('at')} AS at
     FROM service_time_history WHERE entry_id = ANY($1::uuid[]) ORDER BY entry_id, revision`, [rows.map((r) => r.id)])
  const by = new Map<string, TimeHistoryItem[]>()
  for (const x of h.rows) {
    const list = by.get(x.entry_id) ?? []
    list.push({ revision: x.revision, action: x.action, reason: x.reason, changed: x.changed, values: x.snapshot, actor_staff_id: x.actor_staff_id, at: x.at })
    by.set(x.entry_id, list)
  }
  return rows.map((r) => ({ ...r, history: by.get(r.id) ?? [] }))
}

export async function createEntry(tx: Sql, workspaceId: string, serviceId: string, input: TimeCreateInput, actor: Actor): Promise<TimeEntry> {
  const at = occurredAt(input.occurred_at)
  const r = await tx.query<Row>(
    `INSERT INTO service_time_entries (id, workspace_id, service_id, state, occurred_at, minutes, description, internal_notes,
       task_id, staff_id, chargeable, created_by_staff_id)
     VALUES ($1, $2, $3, $4, $5::timestamptz, $6, $7, $8, $9, $10, $11, $12) RETURNING ${COLUMNS}`,
    [randomUUID(), workspaceId, serviceId, input.state ?? 'posted', at, input.minutes, input.description,
      input.internal_notes ?? '', input.task_id ?? null, input.staff_id ?? actor.staffId, input.chargeable ?? true, actor.staffId])
  const row = r.rows[0] as Row
  await addHistory(tx, row, 'create', null, [...VALUE_KEYS], actor)
  return (await withHistory(tx, [row]))[0] as TimeEntry
}

/** Explains why a conditional update matched no row: 404, voided, or a stale revision. */
async function whyNot(tx: Sql, workspaceId: string, serviceId: string, entryId: string, revision: number): Promise<never> {
  const r = await tx.query<{ state: string; revision: number }>(
    'SELECT state, revision FROM service_time_entries WHERE workspace_id = $1 AND service_id = $2 AND id = $3', [workspaceId, serviceId, entryId])
  const cur = r.rows[0]
  if (cur === undefined) throw new NotFoundError('time entry')
  if (cur.state === 'voided') throw new TimeEntryVoidedError()
  throw new ConflictError(`revision ${revision} is not the entry's current revision ${cur.revision}: read it again`)
}

export async function correctEntry(
  tx: Sql, workspaceId: string, serviceId: string, entryId: string, input: TimeCorrectInput, actor: Actor,
): Promise<TimeEntry> {
  const patch: Partial<Record<(typeof VALUE_KEYS)[number], unknown>> = {}
  for (const k of VALUE_KEYS) {
    const v = input[k]
    if (v !== undefined && v !== null) patch[k] = k === 'occurred_at' ? occurredAt(v as string) : v
  }
  const keys = Object.keys(patch) as (typeof VALUE_KEYS)[number][]
  if (keys.length === 0) {
    throw new RequestInvalid([detail(['body'], 'A correction changes at least one of occurred_at, minutes, description, internal_notes, task_id, staff_id, chargeable, state', 'value_error')])
  }
  const params: unknown[] = [workspaceId, serviceId, entryId, input.revision]
  const sets = keys.map((k) => {
    params.push(patch[k])
    return `${k} = $${params.length}${k === 'occurred_at' ? '::timestamptz' : ''}`
  })
  const r = await tx.query<Row>(
    `UPDATE service_time_entries SET ${sets.join(', ')}, revision = revision + 1, updated_at = now()
     WHERE workspace_id = $1 AND service_id = $2 AND id = $3 AND revision = $4 AND state <> 'voided' RETURNING ${COLUMNS}`, params)
  const row = r.rows[0]
  if (row === undefined) return whyNot(tx, workspaceId, serviceId, entryId, input.revision)
  const prev = await tx.query<{ snapshot: TimeValues }>(
    'SELECT snapshot FROM service_time_history WHERE entry_id = $1 AND revision = $2', [entryId, input.revision])
  const before = prev.rows[0]?.snapshot
  const after = valuesOf(row)
  const changed = VALUE_KEYS.filter((k) => before === undefined || JSON.stringify(before[k]) !== JSON.stringify(after[k]))
  await addHistory(tx, row, 'correct', input.reason, changed, actor)
  return (await withHistory(tx, [row]))[0] as TimeEntry
}

export async function voidEntry(
  tx: Sql, workspaceId: string, serviceId: string, entryId: string, revision: number, reason: string, actor: Actor,
): Promise<TimeEntry> {
  const r = await tx.query<Row>(
    `UPDATE service_time_entries SET state = 'voided', voided_at = now(), void_reason = $5, revision = revision + 1, updated_at = now()
     WHERE workspace_id = $1 AND service_id = $2 AND id = $3 AND revision = $4 AND state <> 'voided' RETURNING ${COLUMNS}`,
    [workspaceId, serviceId, entryId, revision, reason])
  const row = r.rows[0]
  if (row === undefined) return whyNot(tx, workspaceId, serviceId, entryId, revision)
  await addHistory(tx, row, 'void', reason, ['state'], actor)
  return (await withHistory(tx, [row]))[0] as TimeEntry
}

export interface UsageTotals {
  entries: number
  voided_entries: number
  posted_minutes: number
  draft_minutes: number
  chargeable_posted_minutes: number
}

export async function usageTotals(db: Sql, workspaceId: string, serviceId: string): Promise<UsageTotals> {
  const r = await db.query<Record<keyof UsageTotals, unknown>>(
    `SELECT count(*) FILTER (WHERE state <> 'voided') AS entries,
            count(*) FILTER (WHERE state = 'voided') AS voided_entries,
            coalesce(sum(minutes) FILTER (WHERE state = 'posted'), 0) AS posted_minutes,
            coalesce(sum(minutes) FILTER (WHERE state = 'draft'), 0) AS draft_minutes,
            coalesce(sum(minutes) FILTER (WHERE state = 'posted' AND chargeable), 0) AS chargeable_posted_minutes
     FROM service_time_entries WHERE workspace_id = $1 AND service_id = $2`, [workspaceId, serviceId])
  const row = r.rows[0] as Record<keyof UsageTotals, unknown>
  return {
    entries: Number(row.entries), voided_entries: Number(row.voided_entries), posted_minutes: Number(row.posted_minutes),
    draft_minutes: Number(row.draft_minutes), chargeable_posted_minutes: Number(row.chargeable_posted_minutes),
  }
}

/** Newest first by occurrence; voided entries stay listed with their history. */
export async function listEntries(
  db: Sql, workspaceId: string, serviceId: string, limit: number, after: [string, string] | null,
): Promise<{ items: TimeEntry[]; last: [string, string] | null }> {
  const params: unknown[] = [workspaceId, serviceId]
  let where = 'workspace_id = $1 AND service_id = $2'
  if (after !== null) {
    params.push(after[0], after[1])
    where += ` AND (service_time_entries.occurred_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`
  }
  params.push(limit + 1)
  const r = await db.query<Row>(
    `SELECT ${COLUMNS} FROM service_time_entries WHERE ${where}
     ORDER BY service_time_entries.occurred_at DESC, id DESC LIMIT $${params.length}`, params)
  const rows = r.rows.slice(0, limit)
  const lastRow = rows[rows.length - 1]
  return {
    items: await withHistory(db, rows),
    last: r.rows.length > limit && lastRow !== undefined ? [lastRow.occurred_at, lastRow.id] : null,
  }
}

/** Internal notes are for staff: other readers get entries without them. */
export function withoutInternalNotes(e: TimeEntry): Omit<TimeEntry, 'internal_notes'> {
  const { internal_notes: _n, ...rest } = e
  return {
    ...rest,
    history: e.history.map((h) => {
      const { internal_notes: _x, ...values } = h.values
      return { ...h, values, changed: h.changed.filter((c) => c !== 'internal_notes') }
    }),
  }
}
