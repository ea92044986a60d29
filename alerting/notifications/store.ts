// The local notification inbox: one entry per incident opening or recovery
// (written by the alert dispatcher from the monitor outbox), read state and
// archive, the notification_toasts setting, and 90-day expiry that spares
// the entries of incidents still open.
import { randomUUID } from 'node:crypto'
import { openIncidentIds, type OutboxPayload } from '../../monitor/index.ts'
import type { Sql } from '../../core/index.ts'
import { NotFoundError } from '../../core/index.ts'
import { severityOf, subjectOf } from '../alerts/messages.ts'

/** Largest page of notifications a read returns. */
export const NOTIFICATIONS_MAX_LIMIT = 50

export const FILTERS = ['all', 'unread', 'archived'] as const
export type Filter = (typeof FILTERS)[number]
export const ACTIONS = ['read', 'unread', 'archive', 'restore', 'read_all'] as const
export type NotificationAction = (typeof ACTIONS)[number]
export const RETENTION_MS = 90 * 86_400_000
export const SETTING_TOASTS = 'notification_toasts'

export interface NotificationRow {
  id: string
  seq: string
  workspace_id: string
  source_event_id: string | null
  kind: string
  severity: string
  resource_id: string | null
  incident_id: string | null
  title: string
  body: string
  read_at: Date | null
  archived_at: Date | null
  toast_claimed_at: Date | null
  toast_state: string | null
  created_at: Date
  incident_state?: 'open' | 'closed' | null
  /** 'local', or 'portal' for the cached portal copy (desktop/portal/notifications.ts). */
  source?: 'local' | 'portal'
  portal_incident_state?: 'open' | 'closed' | null
}

export interface NotificationView {
  id: string
  source: 'local' | 'portal'
  kind: string
  severity: string
  state: 'unread' | 'read' | 'archived'
  title: string
  body: string
  resource_id: string | null
  incident_id: string | null
  incident_state: 'open' | 'closed' | null
  created_at: string
  read_at: string | null
  archived_at: string | null
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString())

export function toView(n: NotificationRow): NotificationView {
  return {
    id: n.id, source: n.source ?? 'local', kind: n.kind, severity: n.severity,
    state: n.archived_at !== null ? 'archived' : n.read_at === null ? 'unread' : 'read',
    title: n.title, body: n.body, resource_id: n.resource_id, incident_id: n.incident_id,
    incident_state: n.source === 'portal' ? n.portal_incident_state ?? null : n.incident_state ?? null,
    created_at: iso(n.created_at) as string, read_at: iso(n.read_at), archived_at: iso(n.archived_at),
  }
}

/** The inbox entry of an incident event; a replayed event adds nothing (unique source_event_id). */
export async function insertIncidentNotification(tx: Sql, p: OutboxPayload, resourceName: string): Promise<void> {
  const opened = p.type === 'incident.opened'
  const c = p.check
  const title = c === null
    ? `${resourceName}: ${subjectOf(p).short} ${opened ? 'is offline' : 'is no longer offline'}`
    : (opened ? `${resourceName} is down` : `${resourceName} recovered`)
  const body = c === null
    ? (opened ? `${p.reason}. Its checks are unknown until it reports again.` : `${p.reason}; the incident opened at ${p.opened_at}.`)
    : (opened ? `Check "${c.name}" (${c.kind}) failed: ${p.reason}` : `Check "${c.name}" (${c.kind}) is healthy again; the incident opened at ${p.opened_at}.`)
  const severity = opened ? severityOf(p) : 'info'
  await tx.query(
    `INSERT INTO notifications (id, workspace_id, source_event_id, kind, severity, resource_id, incident_id, title, body, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (source_event_id) DO NOTHING`,
    [randomUUID(), p.workspace_id, p.event_id, p.type, severity, p.resource_id, p.incident_id, title, body, p.occurred_at])
}

export interface ListQuery {
  query?: string
  notification_id?: string
  filter: Filter
  page: number
  limit: number
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/** The columns of a notification (inbox.ts adds to them); its incident's state is filled in by withIncidentState. */
export const NOTIFICATION_COLUMNS = 'n.*, n.seq::text AS seq'
const SELECT = `SELECT ${NOTIFICATION_COLUMNS} FROM notifications n`

/** Each row with its incident's state, asked of the monitor: open, closed (or gone), null without an incident. */
export async function withIncidentState<R extends NotificationRow>(db: Sql, rows: readonly R[]): Promise<R[]> {
  const open = await openIncidentIds(db, [...new Set(rows.flatMap((n) => (n.incident_id === null ? [] : [n.incident_id])))])
  return rows.map((n) => ({ ...n, incident_state: n.incident_id === null ? null : open.has(n.incident_id) ? 'open' : 'closed' }))
}

/** A page of the inbox, newest first. Reading never marks anything read. */
export async function listNotifications(db: Sql, ws: string, q: ListQuery): Promise<{ items: NotificationView[]; next_page: number | null }> {
  const params: unknown[] = [ws]
  const where = ['n.workspace_id = $1']
  if (q.filter === 'all') where.push('n.archived_at IS NULL')
  else if (q.filter === 'unread') where.push('n.archived_at IS NULL AND n.read_at IS NULL')
  else where.push('n.archived_at IS NOT NULL')
  if (q.notification_id !== undefined) {
    params.push(q.notification_id.toLowerCase())
    where.push(`n.id = $${params.length}`)
  }
  if (q.query !== undefined && q.query !== '') {
    params.push(`%${likeEscape(q.query)}%`)
    where.push(`(n.title ILIKE $${params.length} OR n.body ILIKE $${params.length})`)
  }
  params.push(q.limit + 1, (q.page - 1) * q.limit)
  const r = await db.query<NotificationRow>(
    `${SELECT} WHERE ${where.join(' AND ')} ORDER BY n.seq DESC LIMIT $${params.length - 1} OFFSET $${params.length}`, params)
  return { items: (await withIncidentState(db, r.rows.slice(0, q.limit))).map(toView), next_page: r.rows.length > q.limit ? q.page + 1 : null }
}

export async function unreadCount(db: Sql, ws: string): Promise<number> {
  const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM notifications WHERE workspace_id = $1 AND read_at IS NULL AND archived_at IS NULL', [ws])
  return r.rows[0]?.n ?? 0
}

const SETS: Record<Exclude<NotificationAction, 'read_all'>, string> = {
  read: 'read_at = COALESCE(read_at, $3)',
  unread: 'read_at = NULL',
  archive: 'archived_at = COALESCE(archived_at, $3)',
  restore: 'archived_at = NULL',
}

/** One notification's action; returns it as it now is. */
export async function notificationAction(db: Sql, ws: string, action: Exclude<NotificationAction, 'read_all'>, id: string, now: number): Promise<NotificationView> {
  const params: unknown[] = [ws, id.toLowerCase()]
  if (action === 'read' || action === 'archive') params.push(new Date(now).toISOString())
  const r = await db.query<{ id: string }>(`UPDATE notifications SET ${SETS[action]} WHERE workspace_id = $1 AND id = $2 RETURNING id`, params)
  if (r.rows[0] === undefined) throw new NotFoundError('notification')
  const v = await db.query<NotificationRow>(`${SELECT} WHERE n.id = $1`, [id.toLowerCase()])
  return toView((await withIncidentState(db, v.rows))[0] as NotificationRow)
}

/** Every unread notification becomes read (`localOnly`: not the cached portal entries, which the portal marks). */
export async function readAll(db: Sql, ws: string, now: number, localOnly = false): Promise<number> {
  const r = await db.query(`UPDATE notifications SET read_at = $2 WHERE workspace_id = $1 AND read_at IS NULL${localOnly ? ` AND source = 'local'` : ''}`,
    [ws, new Date(now).toISOString()])
  return r.rowCount
}

/** Deletes entries older than the retention, except those of incidents still open. */
export async function expireNotifications(db: Sql, now: number, retentionMs = RETENTION_MS): Promise<number> {
  const before = new Date(now - retentionMs).toISOString()
  // The incidents still open among the expiring entries' (the monitor's answer); an incident never reopens.
  const ids = await db.query<{ incident_id: string }>(
    'SELECT DISTINCT incident_id FROM notifications WHERE created_at < $1 AND incident_id IS NOT NULL', [before])
  const open = await openIncidentIds(db, ids.rows.map((x) => x.incident_id))
  const r = await db.query(
    'DELETE FROM notifications n WHERE n.created_at < $1 AND (n.incident_id IS NULL OR n.incident_id <> ALL($2::uuid[]))', [before, [...open]])
  return r.rowCount
}

export interface NotificationSettings {
  notification_toasts: boolean
}

export async function readSettings(db: Sql, ws: string): Promise<NotificationSettings> {
  const r = await db.query<{ value: unknown }>('SELECT value FROM notification_settings WHERE workspace_id = $1 AND key = $2', [ws, SETTING_TOASTS])
  return { notification_toasts: r.rows[0]?.value !== false }
}

export async function saveSettings(db: Sql, ws: string, s: Partial<NotificationSettings>): Promise<NotificationSettings> {
  if (s.notification_toasts !== undefined) {
    await db.query(
      `INSERT INTO notification_settings (workspace_id, key, value, updated_at) VALUES ($1, $2, $3::jsonb, now())
       ON CONFLICT (workspace_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [ws, SETTING_TOASTS, JSON.stringify(s.notification_toasts)])
  }
  return readSettings(db, ws)
}
