// Operator settings of alert delivery, read once from the environment by the
// launcher's configuration (deploy/config.ts) and validated with messages that
// name the variable.

export interface AlertSettings {
  /** LOOKOUT_ALLOW_PRIVATE_DESTINATIONS=1: loopback and private addresses become allowed alert destinations. */
  allowPrivate: boolean
  /** LOOKOUT_SMTP_URL: the relay email alerts go through (smtp:// or smtps://); undefined: no email channel. */
  smtpUrl: string | undefined
  /** LOOKOUT_SMTP_FROM: the sender address of alert mail. */
  smtpFrom: string
  /** LOOKOUT_SMS_URL: the SMS provider endpoint (POST {to, body, id}); undefined: no SMS channel. */
  smsUrl: string | undefined
  /** LOOKOUT_SMS_TOKEN: sent as a bearer token to the SMS provider, when set. */
  smsToken: string | undefined
  /**
   * LOOKOUT_PUBLIC_URL: where people reach this server (the console and acknowledge links in
   * alert messages), e.g. https://lookout.example.com. Default http://localhost:<LOOKOUT_PORT>.
   */
  publicUrl: string
  /** The desktop service: alerts stay on this machine (no email, SMS, Slack, Discord; webhooks to loopback only). */
  local?: boolean
}

export const DEFAULT_ALERT_SETTINGS: AlertSettings = {
  allowPrivate: false, smtpUrl: undefined, smtpFrom: 'lookout@localhost', smsUrl: undefined, smsToken: undefined, publicUrl: 'http://localhost:8080',
}

/**
 * The desktop service's alert settings: local alerts never produce email or SMS
 * and are never uploaded (local-desktop-api.md), so no mail relay or SMS
 * provider is kept even when the environment names one.
 */
export function localAlertSettings(s: AlertSettings): AlertSettings {
  return { ...s, local: true, smtpUrl: undefined, smsUrl: undefined, smsToken: undefined }
}

type Env = Record<string, string | undefined>

function url(env: Env, name: string, schemes: readonly string[]): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new Error(`${name} must be a URL (${schemes.join(', ')}), got an unparsable value`)
  }
  if (!schemes.includes(u.protocol.replace(':', ''))) throw new Error(`${name} must use ${schemes.join(' or ')}, got ${u.protocol}`)
  return raw
}

export function alertSettings(env: Env): AlertSettings {
  const allow = env.LOOKOUT_ALLOW_PRIVATE_DESTINATIONS ?? ''
  if (!['', '0', '1', 'true', 'false'].includes(allow)) throw new Error('LOOKOUT_ALLOW_PRIVATE_DESTINATIONS must be 1 or 0')
  const from = env.LOOKOUT_SMTP_FROM || DEFAULT_ALERT_SETTINGS.smtpFrom
  if (!/^[^\s@]+@[^\s@]+$/.test(from) && !/<[^\s@]+@[^\s@]+>$/.test(from)) throw new Error('LOOKOUT_SMTP_FROM must be an email address')
  return {
    allowPrivate: allow === '1' || allow === 'true',
    smtpUrl: url(env, 'LOOKOUT_SMTP_URL', ['smtp', 'smtps']),
    smtpFrom: from,
    smsUrl: url(env, 'LOOKOUT_SMS_URL', ['http', 'https']),
    smsToken: env.LOOKOUT_SMS_TOKEN || undefined,
    publicUrl: (url(env, 'LOOKOUT_PUBLIC_URL', ['http', 'https']) ?? `http://localhost:${env.LOOKOUT_PORT || 8080}`).replace(/\/+$/, ''),
  }
}
