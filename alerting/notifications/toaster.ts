// Desktop toasts. A toast is claimed (toast_claimed_at committed) before it is
// shown, so a restart never shows it again; a toast lost in between costs the
// toast only, never the inbox entry. With notification_toasts off, entries
// are claimed as 'disabled' and never shown (switching toasts back on does not
// replay them); entries already read or archived, or older than an hour when
// first seen (the service was down), are claimed as 'skipped' / 'stale'.
import type { Sql } from '../../core/index.ts'
import { SETTING_TOASTS, toView, type NotificationRow, type NotificationView } from './store.ts'

export interface Toast {
  id: string
  workspace_id: string
  title: string
  body: string
  severity: string
  notification: NotificationView
}

/** Shows a toast: a line on the service's stdout by default, or the embedding application's callback. */
export type ToastSink = (toast: Toast) => void | Promise<void>

export const stdoutToasts: ToastSink = (t) => {
  process.stdout.write(`${JSON.stringify({ toast: { id: t.id, workspace_id: t.workspace_id, severity: t.severity, title: t.title, body: t.body } })}\n`)
}

/** A sink's way to say it could not show the toast for a known reason (no session bus): recorded as that state, not as a failure. */
export class ToastNotShown extends Error {
  readonly state: string

  constructor(state: string, message: string) {
    super(message)
    this.state = state
  }
}

export const STALE_TOAST_MS = 3_600_000

export interface ToasterOptions {
  sink?: ToastSink
  now?: () => number
  batch?: number
  onError?: (err: unknown) => void
}

export class Toaster {
  readonly #db: Sql
  readonly #sink: ToastSink
  readonly #now: () => number
  readonly #batch: number
  readonly #onError: (err: unknown) => void

  constructor(db: Sql, opts: ToasterOptions = {}) {
    this.#db = db
    this.#sink = opts.sink ?? stdoutToasts
    this.#now = opts.now ?? Date.now
    this.#batch = opts.batch ?? 50
    this.#onError = opts.onError ?? (() => undefined)
  }

  /** Claims unclaimed entries and shows those that should be; returns how many were shown. */
  async step(): Promise<number> {
    const now = this.#now()
    const r = await this.#db.query<NotificationRow>(
      `WITH c AS (SELECT id FROM notifications WHERE toast_claimed_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
       UPDATE notifications n SET toast_claimed_at = $2::timestamptz, toast_state = CASE
           WHEN (SELECT s.value FROM notification_settings s WHERE s.workspace_id = n.workspace_id AND s.key = $3) = 'false'::jsonb THEN 'disabled'
           WHEN n.read_at IS NOT NULL OR n.archived_at IS NOT NULL THEN 'skipped'
           WHEN n.created_at < $2::timestamptz - make_interval(secs => $4::double precision) THEN 'stale'
           ELSE 'shown' END
       FROM c WHERE n.id = c.id RETURNING n.*, n.seq::text AS seq`,
      [this.#batch, new Date(now).toISOString(), SETTING_TOASTS, STALE_TOAST_MS / 1000])
    let shown = 0
    for (const row of r.rows.sort((a, b) => Number(a.seq) - Number(b.seq))) {
      if (row.toast_state !== 'shown') continue
      try {
        await this.#sink({ id: row.id, workspace_id: row.workspace_id, title: row.title, body: row.body, severity: row.severity, notification: toView(row) })
        shown++
      } catch (err) {
        // Claimed already, so never retried: the toast is lost, the inbox entry stays; the state says so.
        const state = err instanceof ToastNotShown ? err.state : 'failed'
        await this.#db.query('UPDATE notifications SET toast_state = $2 WHERE id = $1', [row.id, state])
        if (!(err instanceof ToastNotShown)) this.#onError(err)
      }
    }
    return shown
  }
}
