// A log store whose queries are recorded (the real store underneath answers them):
// tests that check which statements a search runs, and with what parameters.
import type { LogStore, QueryParams } from '../../ingest/index.ts'

export interface RecordingStore {
  store: LogStore
  /** Each query's SQL, in order. */
  sqls: string[]
  /** Each query's parameters, in the same order. */
  params: (QueryParams | undefined)[]
  /** Each statement run beside another (queryBeside), in order, apart from `sqls`. */
  besides: { sql: string; params: QueryParams | undefined }[]
}

/** `beside: false`: a store without queryBeside, as one that cannot run two statements at once. */
export function recordingStore(inner: LogStore, options: { beside?: boolean } = {}): RecordingStore {
  const withBeside = options.beside ?? true
  const sqls: string[] = []
  const params: (QueryParams | undefined)[] = []
  const besides: RecordingStore['besides'] = []
  // Each method runs on the real store (its private fields are not the proxy's).
  const store = new Proxy(inner, {
    get: (o, k) => {
      if (k === 'query') return (sql: string, p?: QueryParams) => { sqls.push(sql); params.push(p); return o.query(sql, p) }
      if (k === 'queryBeside') {
        if (!withBeside || o.queryBeside === undefined) return undefined
        return (sql: string, p?: QueryParams) => { besides.push({ sql, params: p }); return o.queryBeside?.(sql, p) }
      }
      const v = Reflect.get(o, k)
      return typeof v === 'function' ? v.bind(o) : v
    },
  })
  return { store, sqls, params, besides }
}
