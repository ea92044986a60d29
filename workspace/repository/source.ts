// Which repository a resource names, and whether the server may read it.
// details.repository_url (code) and details.repository_wiki_url (wiki) hold
// either an https URL (no credentials in it; every address of its host must be
// public), an ssh:// URL of the resource's registered SSH key's destination
// (ssh-remote.ts), or an absolute local path (or file:// URL) whose real path,
// symbolic links resolved, lies under one of the operator's LOOKOUT_REPOSITORY_ROOTS.
import { lookup } from 'node:dns/promises'
import { realpath, stat } from 'node:fs/promises'
import { BlockList, isIP } from 'node:net'
import { sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RepositoryNotConfiguredError } from '../errors.ts'

export const SOURCES = { code: 'code', wiki: 'wiki' } as const
export type SourceName = (typeof SOURCES)[keyof typeof SOURCES]

export const SOURCE_KEYS: Record<SourceName, string> = { code: 'repository_url', wiki: 'repository_wiki_url' }

export interface RepoResource {
  kind: string
  details: Record<string, string>
}

/** Where an ssh:// remote is: it must be the resource's registered SSH key's destination. */
export interface SshRemote {
  host: string
  port: number
  user: string | null
}

export interface ResolvedSource {
  source: SourceName
  /** The details value as written (a change of it means a fresh clone). */
  configured: string
  /** What git clones: a real local path, an https URL, or an ssh:// URL. */
  location: string
  /** Set for an ssh:// remote: git runs with the resource's key and pinned host trust. */
  ssh?: SshRemote
}

const NOT_PUBLIC = new BlockList()
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NOT_PUBLIC.addSubnet(net, bits, 'ipv4')
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96]] as const) {
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6')
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return false
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped !== null) return !NOT_PUBLIC.check(mapped[1] as string, 'ipv4')
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** The configured value for a source, or a 409 explaining why there is none. */
export function configuredValue(resource: RepoResource, source: SourceName): string {
  if (resource.kind !== 'repository') throw new RepositoryNotConfiguredError(`the resource is of kind ${resource.kind}, not repository`)
  const v = resource.details[SOURCE_KEYS[source]]
  if (v === undefined || v.trim() === '') throw new RepositoryNotConfiguredError(`the resource's details have no ${SOURCE_KEYS[source]}`)
  return v.trim()
}

async function localPath(path: string, roots: readonly string[]): Promise<string> {
  if (roots.length === 0) throw new RepositoryNotConfiguredError('local repositories are disabled on this server (the operator sets LOOKOUT_REPOSITORY_ROOTS)')
  let real: string
  try {
    real = await realpath(path)
    if (!(await stat(real)).isDirectory()) throw new Error('not a directory')
  } catch {
    throw new RepositoryNotConfiguredError(`${path} is not a readable directory on the server`)
  }
  for (const root of roots) {
    const r = await realpath(root).catch(() => null)
    if (r !== null && (real === r || real.startsWith(r.endsWith(sep) ? r : r + sep))) return real
  }
  throw new RepositoryNotConfiguredError(`${path} is outside the directories this server may read repositories from`)
}

async function httpsUrl(raw: string): Promise<string> {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new RepositoryNotConfiguredError('repository URL is not a valid URL')
  }
  if (u.username !== '' || u.password !== '') throw new RepositoryNotConfiguredError('the repository URL must not carry credentials (details are workspace-visible)')
  if (u.search !== '' || u.hash !== '') throw new RepositoryNotConfiguredError('the repository URL must not have a query or fragment')
  const host = u.hostname.replace(/^\[|\]$/g, '')
  let addresses: string[]
  try {
    addresses = isIP(host) !== 0 ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
  } catch {
    throw new RepositoryNotConfiguredError(`the repository host ${host} does not resolve`)
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw new RepositoryNotConfiguredError(`the repository host ${host} resolves to a private or reserved address`)
  }
  return u.href
}

// The SSH host as the key store accepts it: no whitespace or control characters, no leading '-'.
const SSH_HOST_RE = /^[^\s\x00-\x1f\x7f-][^\s\x00-\x1f\x7f]*$/

function sshUrl(raw: string): { location: string; ssh: SshRemote } {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new RepositoryNotConfiguredError('repository URL is not a valid URL')
  }
  if (u.password !== '') throw new RepositoryNotConfiguredError('the repository URL must not carry a password (details are workspace-visible)')
  if (u.search !== '' || u.hash !== '') throw new RepositoryNotConfiguredError('the repository URL must not have a query or fragment')
  const host = u.hostname.replace(/^\[|\]$/g, '')
  if (!SSH_HOST_RE.test(host) || u.pathname.length < 2 || /[\s\x00-\x1f\x7f]/.test(decodeURIComponent(u.pathname))) {
    throw new RepositoryNotConfiguredError('the ssh:// repository URL needs a host and a path without spaces or control characters')
  }
  return { location: u.href, ssh: { host, port: u.port === '' ? 22 : Number(u.port), user: u.username === '' ? null : decodeURIComponent(u.username) } }
}

/** Resolves and checks a source just before git touches it. */
export async function resolveSource(resource: RepoResource, source: SourceName, roots: readonly string[]): Promise<ResolvedSource> {
  const configured = configuredValue(resource, source)
  let location: string
  if (configured.startsWith('ssh://')) return { source, configured, ...sshUrl(configured) }
  if (configured.startsWith('https://')) location = await httpsUrl(configured)
  else if (configured.startsWith('file://')) {
    let p: string
    try {
      p = fileURLToPath(configured)
    } catch {
      throw new RepositoryNotConfiguredError('the file:// URL is not a local absolute path')
    }
    location = await localPath(p, roots)
  } else if (configured.startsWith('/')) location = await localPath(configured, roots)
  else throw new RepositoryNotConfiguredError('the repository must be an https URL or an absolute path on the server, or an ssh:// URL with the resource\'s SSH key (http, git and scp-like URLs are not read)')
  return { source, configured, location }
}
