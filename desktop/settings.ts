// The desktop service's settings: one row, changed only by the owner, with a
// revision checked under the row lock. Secrets (the forwarding token) are
// write-only: reads say whether one is set, never what it is.
import type { Database, Sql } from '../core/index.ts'
import { BadRequestError } from '../core/index.ts'
import { SettingsStaleRevisionError } from './errors.ts'

export interface DesktopSettings {
  revision: number
  loopback_enabled: boolean
  loopback_port: number
  retention_days: number
  retention_bytes: number
  forward_enabled: boolean
  forward_url: string
  forward_workspace_id: string | null
  forward_token: string
  updated_at: string
}

/** What a read shows: the token is replaced by whether one is set. */
export type SettingsView = Omit<DesktopSettings, 'forward_token'> & { forward_token_set: boolean }

export type SettingsPatch = Partial<Omit<DesktopSettings, 'revision' | 'updated_at'>> & { revision: number }

export const SETTING_LIMITS = {
  portMin: 1024,
  portMax: 65535,
  retentionDaysMin: 1,
  retentionDaysMax: 3650,
  retentionBytesMin: 1024 * 1024,
  retentionBytesMax: 1024 ** 4,
  urlMax: 2048,
  tokenMax: 4096,
} as const

export const SETTINGS_PATCH_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['revision'],
  minProperties: 2,
  properties: {
    revision: { type: 'integer', minimum: 1 },
    loopback_enabled: { type: 'boolean' },
    loopback_port: { type: 'integer', minimum: SETTING_LIMITS.portMin, maximum: SETTING_LIMITS.portMax },
    retention_days: { type: 'integer', minimum: SETTING_LIMITS.retentionDaysMin, maximum: SETTING_LIMITS.retentionDaysMax },
    retention_bytes: { type: 'integer', minimum: SETTING_LIMITS.retentionBytesMin, maximum: SETTING_LIMITS.retentionBytesMax },
    notification_toasts: { type: 'boolean' },
    forward_enabled: { type: 'boolean' },
    forward_url: { type: 'string', maxLength: SETTING_LIMITS.urlMax },
    forward_workspace_id: { type: 'string', format: 'uuid', nullable: true },
    forward_token: { type: 'string', maxLength: SETTING_LIMITS.tokenMax },
  },
} as const

interface Row {
  revision: number
  loopback_enabled: boolean
  loopback_port: number
  retention_days: number
  retention_bytes: string | number
  forward_enabled: boolean
  forward_url: string
  forward_workspace_id: string | null
  forward_token: string
  updated_at: Date
}

function fromRow(r: Row): DesktopSettings {
  return {
    revision: r.revision,
    loopback_enabled: r.loopback_enabled,
    loopback_port: r.loopback_port,
    retention_days: r.retention_days,
    retention_bytes: Number(r.retention_bytes),
    forward_enabled: r.forward_enabled,
    forward_url: r.forward_url,
    forward_workspace_id: r.forward_workspace_id,
    forward_token: r.forward_token,
    updated_at: new Date(r.updated_at).toISOString(),
  }
}

export function viewOf(s: DesktopSettings): SettingsView {
  const { forward_token: token, ...rest } = s
  return { ...rest, forward_token_set: token !== '' }
}

export async function readDesktopSettings(db: Sql): Promise<DesktopSettings> {
  const r = await db.query<Row>('SELECT * FROM desktop_settings WHERE id = 1')
  const row = r.rows[0]
  if (row === undefined) throw new Error('desktop_settings has no row: the desktop migrations did not run')
  return fromRow(row)
}

/** A forwarding target is an http(s) URL without credentials, query or fragment. */
export function checkForwardUrl(url: string): void {
  if (url === '') return
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new BadRequestError('forward_url is not a URL')
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new BadRequestError('forward_url must be http or https')
  if (u.username !== '' || u.password !== '') throw new BadRequestError('forward_url must not carry credentials (use forward_token)')
  if (u.search !== '' || u.hash !== '') throw new BadRequestError('forward_url must not have a query or fragment')
}

/** The settings as they would be after the patch; refuses combinations that cannot work. */
export function merged(current: DesktopSettings, patch: SettingsPatch): DesktopSettings {
  const next: DesktopSettings = { ...current }
  for (const key of Object.keys(patch) as (keyof SettingsPatch)[]) {
    if (key === 'revision' || !(key in next)) continue
    ;(next as unknown as Record<string, unknown>)[key] = patch[key]
  }
  if (patch.forward_workspace_id !== undefined && patch.forward_workspace_id !== null) next.forward_workspace_id = patch.forward_workspace_id.toLowerCase()
  checkForwardUrl(next.forward_url)
  if (next.forward_enabled && (next.forward_url === '' || next.forward_workspace_id === null || next.forward_token === '')) {
    throw new BadRequestError('forwarding needs forward_url, forward_workspace_id and forward_token before it can be enabled')
  }
  return next
}

/**
 * Saves a patch if `revision` is still the current one (checked under the row
 * lock, then again by the conditional UPDATE); a stale revision changes nothing.
 */
export async function saveDesktopSettings(db: Database, patch: SettingsPatch): Promise<{ before: DesktopSettings; after: DesktopSettings }> {
  return db.transaction(async (tx) => {
    const r = await tx.query<Row>('SELECT * FROM desktop_settings WHERE id = 1 FOR UPDATE')
    const row = r.rows[0]
    if (row === undefined) throw new Error('desktop_settings has no row')
    const before = fromRow(row)
    if (before.revision !== patch.revision) throw new SettingsStaleRevisionError(patch.revision)
    const next = merged(before, patch)
    const u = await tx.query<Row>(
      `UPDATE desktop_settings SET
         loopback_enabled = $2, loopback_port = $3, retention_days = $4, retention_bytes = $5,
         forward_enabled = $6, forward_url = $7, forward_workspace_id = $8, forward_token = $9,
         revision = revision + 1, updated_at = now()
       WHERE id = 1 AND revision = $1 RETURNING *`,
      [patch.revision, next.loopback_enabled, next.loopback_port, next.retention_days, next.retention_bytes,
        next.forward_enabled, next.forward_url, next.forward_workspace_id, next.forward_token])
    const saved = u.rows[0]
    if (saved === undefined) throw new SettingsStaleRevisionError(patch.revision)
    return { before, after: fromRow(saved) }
  })
}
