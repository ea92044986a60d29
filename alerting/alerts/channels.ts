// Alert channels: what a valid address is for each, and how an address is
// shown back (never in full: Slack and Discord URLs carry their token, a
// webhook URL may carry credentials, phone numbers and mail are personal).
import { alertPolicy, LOCAL_ALERT_POLICY } from '../../core/index.ts'
import { literalRefused } from '../../core/index.ts'

export const CHANNELS = ['email', 'sms', 'webhook', 'slack', 'discord'] as const
export type Channel = (typeof CHANNELS)[number]
/** Whether a subscriber who saved no choice gets a channel (SMS costs money: opt in). */
export const DEFAULT_STATE: Readonly<Record<Channel, 'on' | 'off'>> = { email: 'on', sms: 'off', webhook: 'on', slack: 'on', discord: 'on' }

const EMAIL_RE = /^[^\s@<>(),;:"[\]\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/
const E164_RE = /^\+[1-9]\d{6,14}$/
const SLACK_HOSTS = new Set(['hooks.slack.com'])
const DISCORD_HOSTS = new Set(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com'])

function parseHttpUrl(address: string): URL | string {
  let u: URL
  try {
    u = new URL(address)
  } catch {
    return 'must be an absolute http(s) URL'
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'must use http or https'
  if (u.hash !== '') return 'must not contain a fragment'
  return u
}

/**
 * The problem with an address for a channel, or null when it is valid. Slack
 * and Discord need their own incoming-webhook URLs over https, unless the
 * operator allows private destinations (self-hosted relays), which opens them
 * to any http(s) URL, as webhooks are. IP-literal hosts are checked against the
 * outbound policy here already; names are checked at every delivery attempt.
 */
export function addressProblem(channel: Channel, address: string, allowPrivate: boolean): string | null {
  switch (channel) {
    case 'email':
      return address.length <= 254 && EMAIL_RE.test(address) ? null : 'must be an email address (local@domain)'
    case 'sms':
      return E164_RE.test(address) ? null : 'must be a phone number in E.164 form, e.g. +14155550123'
    case 'webhook':
    case 'slack':
    case 'discord': {
      const u = parseHttpUrl(address)
      if (typeof u === 'string') return u
      if (channel !== 'webhook' && !allowPrivate) {
        const hosts = channel === 'slack' ? SLACK_HOSTS : DISCORD_HOSTS
        const path = channel === 'slack' ? '/services/' : '/api/webhooks/'
        if (u.protocol !== 'https:' || !hosts.has(u.hostname) || !u.pathname.startsWith(path)) {
          return `must be a ${channel} incoming-webhook URL (https://${[...hosts][0] as string}${path}...)`
        }
      }
      return literalRefused(address, alertPolicy(allowPrivate))
    }
  }
}

/**
 * Why a destination cannot be saved on the desktop service, or null: local
 * alerts never produce email or SMS, never go to a hosted service (Slack,
 * Discord), and a webhook must stay on this machine (a loopback address; a
 * name is checked again, resolved, at every delivery).
 */
export function localProblem(channel: Channel, address: string): string | null {
  if (channel === 'email' || channel === 'sms') return `the desktop service never sends ${channel === 'email' ? 'email' : 'SMS'} alerts; use the inbox and desktop toasts, or a webhook on this machine`
  if (channel !== 'webhook') return `the desktop service does not send alerts to ${channel}; use a webhook on this machine (a loopback address)`
  const refused = literalRefused(address, LOCAL_ALERT_POLICY)
  if (refused !== null) return `a webhook destination must be on this machine (a loopback address): ${refused}`
  const u = parseHttpUrl(address)
  if (typeof u === 'string') return null // the ordinary check reports it
  return u.hostname === 'localhost' || literalHost(u.hostname) ? null : 'a webhook destination must be on this machine: name it by a loopback address (127.0.0.1, [::1]) or localhost'
}

function literalHost(host: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.startsWith('[')
}

/** A recognisable, partial form of an address. */
export function addressHint(channel: Channel, address: string): string {
  switch (channel) {
    case 'email': {
      const at = address.lastIndexOf('@')
      const local = address.slice(0, at)
      return `${local.slice(0, 1)}***@${address.slice(at + 1)}`
    }
    case 'sms':
      return `${address.slice(0, 2)}${'*'.repeat(Math.max(0, address.length - 6))}${address.slice(-4)}`
    default: {
      try {
        const u = new URL(address)
        return `${u.protocol}//${u.host}/…`
      } catch {
        return '…'
      }
    }
  }
}
