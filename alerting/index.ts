// Public surface of the alerting stage: what other stages use.
export { HEADERS, signature } from './webhooks/envelope.ts'
export type { Envelope } from './webhooks/envelope.ts'
export {
  readSettings, saveSettings, FILTERS, expireNotifications, ACTIONS, listNotifications, notificationAction, readAll, unreadCount,
} from './notifications/store.ts'
export type { ListQuery, NotificationAction } from './notifications/store.ts'
export { FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, notificationFeed } from './notifications/feed.ts'
export type { FeedItem } from './notifications/feed.ts'
export { destinationView, listDestinations, subscriberOf } from './alerts/destinations.ts'
export type { ResourceInfo } from './alerts/messages.ts'
export { runOperation } from './alerts/operations.ts'
export { readPolicy } from './alerts/routing.ts'
export { ALERT_CHANGE } from './alerts/schemas.ts'
export type { AlertValues, Operation } from './alerts/schemas.ts'
export { DEFAULT_ALERT_SETTINGS, alertSettings, localAlertSettings } from './alerts/settings.ts'
export type { AlertSettings } from './alerts/settings.ts'
export { startDeliveryWorkers } from './alerts/background.ts'
export type { DeliveryWorkers, DeliveryWorkerOptions } from './alerts/background.ts'
export { alertDeliveriesView } from './alerts/deliveries.ts'
export { AlertDispatcher } from './alerts/dispatcher.ts'
export { AlertSender } from './alerts/sender.ts'
export { Toaster, ToastNotShown } from './notifications/toaster.ts'
export type { Toast, ToastSink } from './notifications/toaster.ts'
export { WebhookWorker, retryDelay } from './webhooks/worker.ts'
export { ALERT_MIGRATIONS } from './alerts/migrations.ts'
export { NOTIFICATION_MIGRATIONS } from './notifications/migrations.ts'
export { WEBHOOK_MIGRATIONS } from './webhooks/migrations.ts'
export { RESTORE_BODY, restoreWebhooks } from './webhooks/restore.ts'
export {
  DELIVERIES_QUERY, DELIVERY_PARAMS, WEBHOOK_CREATE, WEBHOOK_PARAMS, WEBHOOK_PATCH, WORKSPACE_QUERY,
} from './webhooks/schemas.ts'
export {
  createSubscription, deleteSubscription, getSubscriptionRow, listDeliveries, listSubscriptions, queueTest, retryDelivery, subscriptionView, updateSubscription,
} from './webhooks/store.ts'
export type { DeliveryView, SubscriptionInput, SubscriptionPatch } from './webhooks/store.ts'
export type { DeliveryObserver } from './observer.ts'
export { ALERTING_ERROR_CODES } from './errors.ts'
export { NOTIFICATIONS_QUERY } from './notifications/schemas.ts'
