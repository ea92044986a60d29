// `lookout desktop`: the per-user service. Every role in one process on the
// user's data directory, its API for the owner on a Unix socket in a private
// runtime directory (desktop/paths.ts), an optional loopback listener,
// log retention and forwarding driven by settings (api/desktop/).
import { parseArgs } from 'node:util'
import { createWorkspace, listWorkspaces } from '../workspace/index.ts'
import { DesktopService, type DesktopServiceOptions, type ForwarderOptions } from '../desktop/index.ts'
import { localAlertSettings } from '../alerting/index.ts'
import { type Database } from '../core/index.ts'
import { enforceSizeCap, migrateLogStore } from '../ingest/index.ts'
import { loadConfig, type LookoutConfig } from './config.ts'
import { startLookout, type Lookout, type StartOptions } from './runtime.ts'
import { desktopPaths, ensurePrivateDir, type DesktopPaths } from '../desktop/index.ts'
import { openLoopback } from './desktop-listener.ts'
import { DbusToasts } from '../desktop/index.ts'
import { countBuffersInHeapLimit } from './lean-runtime.ts'
import { runRestartable } from './backup-live.ts'

export { desktopPaths, checkPrivateDir, ensurePrivateDir, PrivateDirError } from '../desktop/index.ts'
export type { DesktopPaths } from '../desktop/index.ts'

export interface DesktopOptions {
  /** Environment for the paths and the configuration (default process.env). */
  env?: NodeJS.ProcessEnv
  logger?: StartOptions['logger']
  deliveries?: StartOptions['deliveries']
  /** The forwarding queue bound (default 16 MiB). */
  forwardQueueBytes?: number
  forwarder?: ForwarderOptions
  /** How often the size cap runs; default 60 s. */
  sizeCapEveryMs?: number
  /** The portal sync worker (api/portal): round interval, test hooks. */
  portal?: DesktopServiceOptions['portal']
  /** Failures outside a request (forwarding, the listener at start); default stderr. */
  onError?: DesktopServiceOptions['onError']
  /** A restore on the running service (deploy/backup-live.ts); `lookout desktop` sets it. */
  liveRestore?: StartOptions['liveRestore']
}

export interface Desktop {
  lookout: Lookout
  service: DesktopService
  paths: DesktopPaths
  config: LookoutConfig
  stop(): Promise<void>
}

/** A fresh desktop has one local workspace, so the owner's routes have one to act in. */
async function ensureWorkspace(db: Database): Promise<void> {
  if ((await listWorkspaces(db)).length === 0) await createWorkspace(db, 'Local')
}

export async function startDesktop(options: DesktopOptions = {}): Promise<Desktop> {
  const env = options.env ?? process.env
  const paths = desktopPaths(env)
  ensurePrivateDir(paths.runtimeDir)
  ensurePrivateDir(paths.dataDir)
  const loaded = loadConfig({ ...env, LOOKOUT_DATA_DIR: paths.dataDir })
  // Local alerts stay on this machine: no mail relay or SMS provider, webhooks to loopback only.
  const config: LookoutConfig = { ...loaded, alerts: localAlertSettings(loaded.alerts) }
  const onError = options.onError ?? ((message: string, err: unknown) => {
    process.stderr.write(`lookout desktop: ${message}: ${(err as Error)?.message ?? String(err)}\n`)
  })
  let service: DesktopService | undefined
  // Toasts on the user's session D-Bus, unless the embedder takes them.
  const dbus = options.deliveries?.onToast === undefined ? new DbusToasts(env) : null
  const lookout = await startLookout(config, {
    logger: options.logger,
    deliveries: dbus === null ? options.deliveries : { ...options.deliveries, onToast: dbus.sink },
    ownerSocketPath: paths.socketPath,
    listen: false,
    liveRestore: options.liveRestore,
    secretKeyFile: true,
    // The effective configuration: with the sealing key generated in the data directory (secretKeyFile).
    prepare: async (db, effective) => {
      await ensureWorkspace(db)
      const s = await DesktopService.open(db, {
        socketPath: paths.socketPath, forwardQueueBytes: options.forwardQueueBytes, forwarder: options.forwarder, onError,
        toasts: () => dbus?.status() ?? { delivery: 'the embedding application' },
        secretKey: effective.secretKey, portal: { intervalMs: config.portalSyncMs, ...options.portal },
      })
      service = s
      const { retention_days: days, retention_bytes: bytes } = s.settings
      return { config: { retentionDays: days, maxLogBytes: bytes }, sizeCap: false, onAccepted: s.onAccepted, app: { desktop: s, otlpContract: 'desktop' } }
    },
  })
  const svc = service as DesktopService
  const store = lookout.store
  // The size cap follows the setting while running (the runtime's own cap has a fixed value).
  let capBytes = lookout.config.maxLogBytes
  let capping: Promise<unknown> = Promise.resolve()
  const cap = () => {
    capping = capping.then(() => enforceSizeCap(store, capBytes)).catch((err: unknown) => onError('the log size cap failed', err))
    return capping
  }
  const timer = setInterval(cap, options.sizeCapEveryMs ?? 60_000)
  timer.unref()
  try {
    await svc.start({
      openLoopback: (port) => {
        if (lookout.appOptions === null) throw new Error('the api role is not running')
        return openLoopback(lookout.appOptions, port)
      },
      applyRetention: async (days, bytes) => {
        await migrateLogStore(store, { retentionDays: days, layout: config.clickhouseLayout, cluster: config.clickhouseCluster })
        capBytes = bytes
        await cap()
      },
    })
  } catch (err) {
    clearInterval(timer)
    await lookout.stop()
    throw err
  }
  let stopped: Promise<void> | null = null
  return {
    lookout, service: svc, paths, config: lookout.config,
    stop: () => (stopped ??= (async () => {
      clearInterval(timer)
      await svc.stop()
      await capping
      await lookout.stop()
    })()),
  }
}

/** The `lookout desktop` command: runs until SIGTERM or SIGINT; a restore asked meanwhile restarts it on the backup. */
export async function desktopCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { 'data-dir': { type: 'string' } } })
  const env = values['data-dir'] === undefined ? process.env : { ...process.env, LOOKOUT_DATA_DIR: values['data-dir'] }
  const say = (line: string) => process.stdout.write(`lookout desktop: ${line}\n`)
  await runRestartable(desktopPaths(env).dataDir, async (liveRestore) => {
    const desktop = await startDesktop({ env, liveRestore })
    countBuffersInHeapLimit()
    const status = await desktop.service.status()
    say(`owner socket ${desktop.paths.socketPath} (data: ${desktop.paths.dataDir})` +
      (status.loopback.url === null ? '' : `; loopback listener on ${status.loopback.url}`))
    return desktop
  }, say, { doing: 'stopping', what: 'stop' })
  process.stdout.write('stopped\n')
  return 0
}
