// The clones the server keeps: one bare mirror per (resource, source) under the
// cache directory, refreshed in the background (at most two git transfers at a
// time, one per mirror), with a small state file beside it. Every app built on
// the same cache directory in this process shares one manager, so the owner
// socket and the HTTP listener see the same refreshes.
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { git, GitError, GitMissing } from './git.ts'
import type { SshCommand } from '../../tunnel/index.ts'
import type { ResolvedSource, SourceName } from './source.ts'

export interface MirrorState {
  configured: string
  state: 'refreshing' | 'ready' | 'failed'
  last_refresh_at: string | null
  last_attempt_at: string | null
  last_error: string | null
}

const MAX_TRANSFERS = 2

function sshReason(stderr: string): string | null {
  if (/HOST IDENTIFICATION HAS CHANGED|Host key verification failed/i.test(stderr)) return 'the SSH server\'s host key does not match the pinned one: refused (PUT the key again with the new host_fingerprint to trust it)'
  if (/Permission denied \(/.test(stderr)) return 'the SSH server refused the resource\'s key'
  return null
}

/** The ssh:// source's key or host trust could not be made ready (the message names why; no secret in it). */
class SshUnavailable extends Error {}
const TRANSFER_TIMEOUT_MS = 10 * 60_000

export class RepositoryMirrors {
  readonly cacheDir: string
  readonly #jobs = new Map<string, Promise<void>>()
  readonly #abort = new AbortController()
  #transfers = 0
  readonly #queue: (() => void)[] = []
  users = 0

  constructor(cacheDir: string) {
    this.cacheDir = cacheDir
  }

  gitDir(resourceId: string, source: SourceName): string {
    return join(this.cacheDir, resourceId, `${source}.git`)
  }

  #stateFile(resourceId: string, source: SourceName): string {
    return join(this.cacheDir, resourceId, `${source}.json`)
  }

  isRefreshing(resourceId: string, source: SourceName): boolean {
    return this.#jobs.has(`${resourceId}/${source}`)
  }

  async state(resourceId: string, source: SourceName): Promise<MirrorState | null> {
    try {
      const s = JSON.parse(await readFile(this.#stateFile(resourceId, source), 'utf8')) as MirrorState
      // A refresh this process is not running was interrupted (restart).
      if (s.state === 'refreshing' && !this.isRefreshing(resourceId, source)) {
        return { ...s, state: s.last_refresh_at === null ? 'failed' : 'ready', last_error: s.last_error ?? 'the refresh was interrupted' }
      }
      return s
    } catch {
      return null
    }
  }

  /** True when a clone of exactly this configured source is on disk. */
  async ready(resourceId: string, src: ResolvedSource | { source: SourceName; configured: string }): Promise<boolean> {
    const s = await this.state(resourceId, src.source)
    return s !== null && s.configured === src.configured && s.last_refresh_at !== null && existsSync(this.gitDir(resourceId, src.source))
  }

  /** Starts a background refresh unless one is running; returns at once. An ssh:// source brings its ssh command's maker. */
  refresh(resourceId: string, src: ResolvedSource, ssh?: () => Promise<SshCommand>): void {
    const key = `${resourceId}/${src.source}`
    if (this.#jobs.has(key) || this.#abort.signal.aborted) return
    const job = this.#run(resourceId, src, ssh).finally(() => this.#jobs.delete(key))
    this.#jobs.set(key, job)
  }

  async #writeState(resourceId: string, source: SourceName, s: MirrorState): Promise<void> {
    const file = this.#stateFile(resourceId, source)
    const tmp = `${file}.${randomUUID()}.tmp`
    await writeFile(tmp, JSON.stringify(s))
    await rename(tmp, file)
  }

  async #slot(): Promise<() => void> {
    if (this.#transfers >= MAX_TRANSFERS) await new Promise<void>((r) => this.#queue.push(r))
    this.#transfers++
    return () => {
      this.#transfers--
      this.#queue.shift()?.()
    }
  }

  async #run(resourceId: string, src: ResolvedSource, ssh?: () => Promise<SshCommand>): Promise<void> {
    const dir = join(this.cacheDir, resourceId)
    await mkdir(dir, { recursive: true, mode: 0o700 })
    const prev = await this.state(resourceId, src.source)
    const same = prev !== null && prev.configured === src.configured && existsSync(this.gitDir(resourceId, src.source))
    const base: MirrorState = {
      configured: src.configured,
      state: 'refreshing',
      last_refresh_at: same ? prev.last_refresh_at : null,
      last_attempt_at: new Date().toISOString(),
      last_error: null,
    }
    await this.#writeState(resourceId, src.source, base)
    const release = await this.#slot()
    let cmd: SshCommand | null = null
    const opts = { home: this.cacheDir, timeoutMs: TRANSFER_TIMEOUT_MS, signal: this.#abort.signal, maxBuffer: 1024 * 1024, sshCommand: undefined as string | undefined }
    const target = this.gitDir(resourceId, src.source)
    const tmp = join(dir, `.${src.source}-${randomUUID()}.tmp`)
    try {
      if (src.ssh !== undefined) {
        if (ssh === undefined) throw new SshUnavailable('no SSH key is available for this ssh:// repository')
        cmd = await ssh().catch((err: unknown) => {
          throw new SshUnavailable(`SSH: ${String((err as Error)?.message ?? err)}`)
        })
        opts.sshCommand = cmd.command
      }
      if (same) {
        await git(['fetch', '--prune', '--quiet', 'origin'], { ...opts, gitDir: target })
        await this.#followRemoteHead(target, opts)
      } else {
        await git(['clone', '--mirror', '--no-local', '--quiet', '--', src.location, tmp], opts)
        await rm(target, { recursive: true, force: true })
        await rename(tmp, target)
      }
      await this.#writeState(resourceId, src.source, { ...base, state: 'ready', last_refresh_at: new Date().toISOString() })
    } catch (err) {
      await rm(tmp, { recursive: true, force: true }).catch(() => undefined)
      let why = err instanceof GitError || err instanceof GitMissing || err instanceof SshUnavailable ? err.message : 'the refresh failed'
      // git's last lines only say it could not read the remote; ssh said why earlier.
      if (src.ssh !== undefined && err instanceof GitError) why = sshReason(err.stderr) ?? why
      await this.#writeState(resourceId, src.source, { ...base, state: 'failed', last_error: why.split(this.cacheDir).join('<cache>').slice(0, 500) })
        .catch(() => undefined)
    } finally {
      // The key file lives only as long as the transfer.
      await cmd?.dispose().catch(() => undefined)
      release()
    }
  }

  /** A mirror's HEAD follows the remote's default branch when it changes. */
  async #followRemoteHead(gitDir: string, opts: { home: string; signal: AbortSignal; sshCommand?: string }): Promise<void> {
    const out = (await git(['ls-remote', '--symref', 'origin', 'HEAD'], { ...opts, gitDir, timeoutMs: 60_000 })).toString('utf8')
    const m = /^ref: (refs\/heads\/[^\t\n]+)\tHEAD$/m.exec(out)
    if (m !== null) await git(['symbolic-ref', 'HEAD', m[1] as string], { ...opts, gitDir })
  }

  /** Stops running transfers and waits for their jobs to settle. */
  async close(): Promise<void> {
    this.#abort.abort()
    for (const r of this.#queue.splice(0)) r()
    await Promise.allSettled([...this.#jobs.values()])
  }
}

const shared = new Map<string, RepositoryMirrors>()

/** The process's manager for a cache directory; release it with `releaseMirrors`. */
export function acquireMirrors(cacheDir: string): RepositoryMirrors {
  let m = shared.get(cacheDir)
  if (m === undefined) {
    m = new RepositoryMirrors(cacheDir)
    shared.set(cacheDir, m)
  }
  m.users++
  return m
}

export async function releaseMirrors(m: RepositoryMirrors): Promise<void> {
  m.users--
  if (m.users > 0) return
  if (shared.get(m.cacheDir) === m) shared.delete(m.cacheDir)
  await m.close()
}
