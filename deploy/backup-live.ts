// A restore on a running service (`lookout backup restore` while `lookout
// desktop` or `lookout serve` runs; owner socket POST /admin/backups/restore).
// The owner's request closes the service gate (api/edge/service-gate.ts: every
// new request answers 503 LOOKOUT_RESTORING) and is answered 202; the process
// then stops its roles the usual way (requests in flight answer, the apps
// drain, then the stores close), restores the backup into its data directory
// with the offline restore (deploy/backup-restore.ts, webhook restore
// included) and starts again on it, in the same process. The state it replaces
// is moved aside first and put back if the restore fails, so a bad backup never
// leaves the service without its data. The outcome is kept in
// <data dir>/backups/last-restore.json, which the CLI reads once the service
// answers again.
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BadRequestError, ConflictError } from '../core/index.ts'
import { ServiceGate } from '../api/index.ts'
import { backupRunning, backupsDir, readBackup } from './backup.ts'
import { restoreBackup, RESTORED_STATE, type RestoreResult } from './backup-restore.ts'
import type { LookoutConfig } from './config.ts'
import { secretKeyPath } from './secret-key.ts'
import { stopGuarded, untilSignal } from './until-signal.ts'

export interface RestoreAsked {
  /** This request's id: the CLI finds its outcome by it. */
  restore_id: string
  id: string
  dir: string
}

export type LiveRestoreOutcome = { restore_id: string; id: string; finished_at: string } & (
  | { ok: true; result: RestoreResult }
  | { ok: false; error: string })

const LAST = 'last-restore.json'
/**
 * How long the closed gate answers 503 before the service stops: clients that
 * poll (and the CLI that asked) see LOOKOUT_RESTORING with Retry-After rather
 * than a refused connection, and requests already in flight finish meanwhile.
 */
const GATE_GRACE_MS = 1_000

/** One per start of the service: the gate its apps check and the owner's request, once. */
export class LiveRestore {
  readonly gate = new ServiceGate()
  readonly requested: Promise<RestoreAsked>
  readonly #dataDir: string
  #asked: RestoreAsked | null = null
  #go: (a: RestoreAsked) => void = () => undefined

  constructor(dataDir: string) {
    this.#dataDir = dataDir
    this.requested = new Promise((resolve) => {
      this.#go = resolve
    })
  }

  /** Checks the backup and closes the gate; go() (once the answer is sent) lets the host stop and restore. */
  ask(ref: string): RestoreAsked {
    if (this.#asked !== null) throw new ConflictError(`a restore of backup ${this.#asked.id} is already under way`)
    if (backupRunning()) throw new ConflictError('a backup is being taken; restore when it is done')
    let b
    try {
      b = readBackup(this.#dataDir, ref)
    } catch (err) {
      throw new BadRequestError((err as Error).message)
    }
    this.#asked = { restore_id: randomUUID(), id: b.manifest.id, dir: b.dir }
    this.gate.close(b.manifest.id)
    return this.#asked
  }

  go(): void {
    if (this.#asked !== null) this.#go(this.#asked)
  }
}

export function lastRestore(dataDir: string): LiveRestoreOutcome | null {
  const p = join(backupsDir(dataDir), LAST)
  return existsSync(p) ? JSON.parse(readFileSync(p, 'utf8')) as LiveRestoreOutcome : null
}

/** The restore itself, on the stopped data directory; the replaced state is kept aside until it succeeded. */
export async function restoreStopped(config: LookoutConfig, asked: RestoreAsked): Promise<LiveRestoreOutcome> {
  const dir = config.dataDir
  const aside = RESTORED_STATE.filter((d) => existsSync(join(dir, d)))
  for (const d of aside) renameSync(join(dir, d), join(dir, `${d}.before-restore`))
  const keyPath = secretKeyPath(dir)
  const key = existsSync(keyPath) ? readFileSync(keyPath) : null
  let outcome: LiveRestoreOutcome
  try {
    const result = await restoreBackup(config, asked.dir, false)
    for (const d of aside) rmSync(join(dir, `${d}.before-restore`), { recursive: true, force: true })
    outcome = { restore_id: asked.restore_id, id: asked.id, finished_at: new Date().toISOString(), ok: true, result }
  } catch (err) {
    for (const d of RESTORED_STATE) rmSync(join(dir, d), { recursive: true, force: true })
    for (const d of aside) renameSync(join(dir, `${d}.before-restore`), join(dir, d))
    if (key !== null) writeFileSync(keyPath, key, { mode: 0o600 })
    outcome = { restore_id: asked.restore_id, id: asked.id, finished_at: new Date().toISOString(), ok: false, error: (err as Error).message }
  }
  writeFileSync(join(backupsDir(dir), LAST), JSON.stringify(outcome, null, 2) + '\n', { mode: 0o600 })
  return outcome
}

export interface Restartable {
  config: LookoutConfig
  stop(): Promise<void>
}

/**
 * Runs a service until SIGTERM or SIGINT; a restore asked meanwhile stops it,
 * restores, and starts it again (on the previous data when the restore failed).
 */
export async function runRestartable(dataDir: string, start: (live: LiveRestore) => Promise<Restartable>, say: (line: string) => void, doing: { doing: string; what: string }): Promise<void> {
  const signal = untilSignal()
  for (;;) {
    const live = new LiveRestore(dataDir)
    const service = await start(live)
    const next = await Promise.race([signal.then((s) => ({ signal: s })), live.requested.then((a) => ({ asked: a }))])
    if ('signal' in next) {
      await stopGuarded({ ...doing, stop: () => service.stop() }, next.signal)
      return
    }
    say(`restoring backup ${next.asked.id}: stopping`)
    await new Promise((r) => setTimeout(r, GATE_GRACE_MS))
    await service.stop()
    const outcome = await restoreStopped(service.config, next.asked)
    say(outcome.ok ? `restored backup ${outcome.id}; starting on it` : `the restore of ${outcome.id} failed (${outcome.error}); starting on the previous data`)
  }
}
