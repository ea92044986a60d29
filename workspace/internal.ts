// The workspace stage's internal surface, for tests and benchmarks only (test/layout.test.ts
// refuses it to production stages): the public surface (index.ts: what other stages use)
// plus what only tests and benchmarks reach for.
export * from './index.ts'
export { readProjectEvents, ACTIONS, projectStore } from './projects/index.ts'
export { openSshKey } from './ssh/store.ts'
