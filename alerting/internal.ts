// The alerting stage's internal surface, for tests and benchmarks only (test/layout.test.ts
// refuses it to production stages): the public surface (index.ts: what other stages use)
// plus what only tests and benchmarks reach for.
export * from './index.ts'
export { signature } from './webhooks/envelope.ts'
export { expireNotifications } from './notifications/store.ts'
export { AlertDispatcher } from './alerts/dispatcher.ts'
export { AlertSender } from './alerts/sender.ts'
export { Toaster } from './notifications/toaster.ts'
export { WebhookWorker, retryDelay } from './webhooks/worker.ts'
export { enqueueWebhookDeliveries } from './webhooks/fanout.ts'
