// The cloud inbox of one principal (the console's notifications): the
// workspace's notifications on the resources the principal may read, with a
// read mark per reader (`staff:<id>` or `token:<id>`), so one person reading
// an alert does not mark it read for the rest of the team. The desktop inbox
// (store.ts) keeps its single owner's read state on the notification itself.
import type { Sql } from '../../core/index.ts'
import { NotFoundError } from '../../core/index.ts'
import { NOTIFICATION_COLUMNS, toView, withIncidentState, type NotificationRow, type NotificationView } from './store.ts'

export const INBOX_FILTERS = ['all', 'unread'] as const
export type InboxFilter = (typeof INBOX_FILTERS)[number]
export const INBOX_ACTIONS = ['read', 'unread', 'read_all'] as const
export type InboxAction = (typeof INBOX_ACTIONS)[number]
export const INBOX_MAX_LIMIT = 50

export interface Reader {
  workspaceId: string
  /** `staff:<id>` or `token:<id>` (alerting's subscriberOf). */
  reader: string
  /** null: every resource of the workspace. */
  grant: readonly string[] | null
}

/** Notifications about no resource are workspace-wide: only a whole-workspace grant sees them. */
const VISIBLE = `n.workspace_id = $1 AND ($2::uuid[] IS NULL OR n.resource_id = ANY($2::uuid[]))`
const READ_JOIN = 'LEFT JOIN notification_reads rd ON rd.notification_id = n.id AND rd.reader = $3'

type InboxRow = NotificationRow & { reader_read_at: Date | null }

/** The reader's own read mark replaces the notification's (archiving is a desktop inbox feature). */
const inboxView = (row: InboxRow): NotificationView => toView({ ...row, read_at: row.reader_read_at, archived_at: null })

export async function inboxPage(db: Sql, r: Reader, filter: InboxFilter, limit: number, beforeSeq: string | null): Promise<{ items: NotificationView[]; last: string | null }> {
  const rows = await db.query<InboxRow>(
    `SELECT ${NOTIFICATION_COLUMNS}, rd.read_at AS reader_read_at FROM notifications n ${READ_JOIN}
     WHERE ${VISIBLE} AND ($4::bigint IS NULL OR n.seq < $4::bigint) ${filter === 'unread' ? 'AND rd.read_at IS NULL' : ''}
     ORDER BY n.seq DESC LIMIT $5`, [r.workspaceId, r.grant === null ? null : [...r.grant], r.reader, beforeSeq, limit + 1])
  const page = await withIncidentState(db, rows.rows.slice(0, limit))
  const last = page[page.length - 1]
  return { items: page.map(inboxView), last: rows.rows.length > limit && last !== undefined ? last.seq : null }
}

export async function inboxUnread(db: Sql, r: Reader): Promise<number> {
  const x = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM notifications n ${READ_JOIN} WHERE ${VISIBLE} AND rd.read_at IS NULL`,
    [r.workspaceId, r.grant === null ? null : [...r.grant], r.reader])
  return x.rows[0]?.n ?? 0
}

/** Marks one visible notification read or unread for the reader; returns it as the reader now sees it. */
export async function inboxMark(db: Sql, r: Reader, id: string, read: boolean, now: number): Promise<NotificationView> {
  const params = [r.workspaceId, r.grant === null ? null : [...r.grant], r.reader, id.toLowerCase()]
  const found = await db.query<{ id: string }>(`SELECT n.id FROM notifications n WHERE ${VISIBLE} AND n.id = $3`, [params[0], params[1], params[3]])
  if (found.rows[0] === undefined) throw new NotFoundError('notification')
  if (read) {
    await db.query(`INSERT INTO notification_reads (notification_id, reader, read_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [id.toLowerCase(), r.reader, new Date(now).toISOString()])
  } else {
    await db.query('DELETE FROM notification_reads WHERE notification_id = $1 AND reader = $2', [id.toLowerCase(), r.reader])
  }
  const v = await db.query<InboxRow>(
    `SELECT ${NOTIFICATION_COLUMNS}, rd.read_at AS reader_read_at FROM notifications n ${READ_JOIN} WHERE ${VISIBLE} AND n.id = $4`, params)
  return inboxView((await withIncidentState(db, v.rows))[0] as InboxRow)
}

/** Every visible unread notification becomes read for the reader. */
export async function inboxReadAll(db: Sql, r: Reader, now: number): Promise<number> {
  const x = await db.query(
    `INSERT INTO notification_reads (notification_id, reader, read_at)
     SELECT n.id, $3, $4 FROM notifications n ${READ_JOIN} WHERE ${VISIBLE} AND rd.read_at IS NULL
     ON CONFLICT DO NOTHING`, [r.workspaceId, r.grant === null ? null : [...r.grant], r.reader, new Date(now).toISOString()])
  return x.rowCount
}
