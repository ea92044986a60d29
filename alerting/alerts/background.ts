// The background side of alerting, run by the monitor role (deploy/runtime.ts),
// never inside a probe loop: the dispatcher (monitor outbox → notifications,
// alert deliveries, repeat/escalation timers), the alert sender, the toaster,
// the assignment-webhook worker, and daily housekeeping. Each polls on its own
// loop and is woken early by the routes of this process.
import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import type { Database } from '../../core/index.ts'
import { PollLoop } from '../../core/index.ts'
import type { Resolver } from '../../core/index.ts'
import { expireNotifications } from '../notifications/store.ts'
import { Toaster, type ToastSink } from '../notifications/toaster.ts'
import { WebhookWorker } from '../webhooks/worker.ts'
import { AlertDispatcher } from './dispatcher.ts'
import { AlertSender, type SenderOptions } from './sender.ts'
import type { AlertSettings } from './settings.ts'
import type { DeliveryObserver } from '../observer.ts'

export const ALERT_HISTORY_MS = 30 * 86_400_000

export interface DeliveryWorkerOptions {
  settings: AlertSettings
  /** LOOKOUT_SECRET_KEY, to open sealed webhook secrets. */
  secretKey?: Buffer
  /** Where toasts go; default: one JSON line on stdout. */
  onToast?: ToastSink
  /** Injected name resolution for both outbound dispatchers (tests). */
  resolver?: Resolver
  /** Alert sender retry tuning (tests). */
  alertRetry?: SenderOptions['retry']
  /** Delivery attempt metrics. */
  observer?: DeliveryObserver
  pollMs?: number
  /** Run the assignment-webhook worker here (default true). */
  webhooks?: boolean
  onError?: (where: string, err: unknown) => void
}

export interface DeliveryWorkers {
  dispatcher: AlertDispatcher
  sender: AlertSender
  toaster: Toaster
  webhooks: WebhookWorker | null
  stop(): Promise<void>
}

/** Deletes alert deliveries and operation ids older than 30 days, and expired notifications. */
export async function housekeeping(db: Database, now: number): Promise<void> {
  const cutoff = new Date(now - ALERT_HISTORY_MS).toISOString()
  await db.query(`DELETE FROM alert_deliveries WHERE created_at < $1 AND state <> 'queued'`, [cutoff])
  await db.query('DELETE FROM alert_operations WHERE created_at < $1', [cutoff])
  await db.query('DELETE FROM alert_incidents WHERE closed_at < $1', [cutoff])
  // A link outlives its incident only as a "this link has expired" answer.
  await db.query('DELETE FROM alert_ack_links WHERE created_at < $1', [cutoff])
  await expireNotifications(db, now)
}

export function startDeliveryWorkers(db: Database, opts: DeliveryWorkerOptions): DeliveryWorkers {
  const id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  const report = (where: string) => (err: unknown) => (opts.onError ?? ((w, e) => process.emitWarning(`lookout ${w}: ${(e as Error).message}`)))(where, err)
  const dispatcher = new AlertDispatcher(db, { workerId: id, links: { publicUrl: opts.settings.publicUrl } })
  const sender = new AlertSender(db, opts.settings, { workerId: id, resolver: opts.resolver, retry: opts.alertRetry, observer: opts.observer, onError: report('alert sender') })
  const toaster = new Toaster(db, { sink: opts.onToast, onError: report('toast') })
  const webhooks = opts.webhooks === false ? null : new WebhookWorker(db, { workerId: id, resolver: opts.resolver, secretKey: opts.secretKey, observer: opts.observer, onError: report('webhooks') })
  const pollMs = opts.pollMs ?? 1000
  let lastHousekeeping = 0
  const loops = [
    new PollLoop(() => dispatcher.step(), { pollMs, onError: report('alert dispatcher') }),
    new PollLoop(() => sender.step(), { pollMs, queue: 'alerts', onError: report('alert sender') }),
    new PollLoop(() => toaster.step(), { pollMs, queue: 'notifications', onError: report('toast') }),
    new PollLoop(async () => {
      if (Date.now() - lastHousekeeping < 3_600_000) return
      lastHousekeeping = Date.now()
      await housekeeping(db, Date.now())
    }, { pollMs: 60_000, onError: report('housekeeping') }),
  ]
  if (webhooks !== null) loops.push(new PollLoop(() => webhooks.step(), { pollMs, queue: 'webhooks', onError: report('webhooks') }))
  for (const l of loops) l.start()
  let stopped: Promise<void> | null = null
  return {
    dispatcher, sender, toaster, webhooks,
    stop: () => (stopped ??= (async () => {
      for (const l of loops) await l.stop()
      await sender.close()
      await webhooks?.close()
    })()),
  }
}
