// A log store whose queries are recorded (the real store underneath answers them):
// tests that check which statements a search runs, and with what parameters.
import type { LogStore, QueryParams } from '../../ingest/index.ts'

export interface RecordingStore {
  store: LogStore
  /** Each query's SQL, in order. */
  sqls: string[]
  /** Each query's parameters, in the same order. */
  params: (QueryParams | undefined)[]
}

export function recordingStore(inner: LogStore): RecordingStore {
  const sqls: string[] = []
  const params: (QueryParams | undefined)[] = []
  const store = new Proxy(inner, {
    get: (o, k) => (k === 'query' ? (sql: string, p?: QueryParams) => { sqls.push(sql); params.push(p); return o.query(sql, p) } : Reflect.get(o, k)),
  })
  return { store, sqls, params }
}
