// The desktop stage's internal surface, for tests and benchmarks only (test/layout.test.ts
// refuses it to production stages): the public surface (index.ts: what other stages use)
// plus what only tests and benchmarks reach for.
export * from './index.ts'
export { undecidedRoutes } from './route-access.ts'
export { WebhookReceiver, MemoryReceiptStore, PgReceiptStore } from './receiver.ts'
export type { ReceiveResult } from './receiver.ts'
export { PORTAL_REQUEST_SCHEMAS } from './tool-schemas.ts'
