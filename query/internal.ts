// The query stage's internal surface, for tests and benchmarks only (test/layout.test.ts
// refuses it to production stages): the public surface (index.ts: what other stages use)
// plus what only tests and benchmarks reach for.
export * from './index.ts'
export type { Position } from './filters.ts'
export { tokensOf, matchesText } from './text.ts'
export { parseShownEventId, shownEventId } from './event-id.ts'
export { matchesAttrs } from './attrs.ts'
export type { AttrMatch } from './attrs.ts'
export { windowQuery, filterConditions, EVENT_COLUMNS, CACHED } from './sql.ts'
export { TailHub } from './tail/hub.ts'
export type { TailSessionOptions } from './tail/session.ts'
export { bucketSeconds } from './histogram.ts'
export { renderLogEventType } from './event-type.ts'
export { countMatchingLines } from './log-count.ts'
