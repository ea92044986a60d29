// Realistic log lines generated inside ClickHouse (INSERT ... SELECT from
// numbers()): 50 resources, 7 days, a mix of API, auth, cache, payment, database
// and worker messages with high-cardinality ids, the usual severity mix,
// attributes, resource attributes, traces of about 7 lines, and rare lines
// carrying a token that appears about once in the whole set.
import { createHash } from 'node:crypto'

export interface Shape {
  rows: number
  resources: number
  days: number
  /** Event time of the newest line, ns. */
  endNs: bigint
}

/** One rare line every RARE_EVERY rows, carrying the token zq<k % RARE_TOKENS>. */
export const RARE_EVERY = 100_003
export const RARE_TOKENS = 200

const COLUMNS = 'workspace_id, resource_id, timestamp, observed_timestamp, received_at, batch_id, event_id, severity_number, severity_text, message, source, attributes, resource_attributes, scope_name, scope_version, trace_id, span_id, flags'

/**
 * Resources whose lines carry a sender's own id (as the desktop's legacy route
 * stores them), the last ones of the set; every other line has the id Lookout
 * derives (ingest/rows/event-id.ts: its request's base, which its batch id starts
 * with, then its place in the request; a request is 1,000 lines here).
 */
export function senderIdResources(s: Shape): number {
  return Math.min(5, Math.floor(s.resources / 10))
}

/** The statement loading rows [offset, offset + count) of the set into `table`. */
export function insertSelect(table: string, s: Shape, offset: number, count: number, workspaceId: string, resourceIds: readonly string[]): { sql: string; params: Record<string, unknown> } {
  const spanNs = BigInt(s.days) * 86_400n * 1_000_000_000n
  return {
    sql: `INSERT INTO ${table} (${COLUMNS}) SELECT
  {ws:UUID},
  {rids:Array(UUID)}[1 + r],
  fromUnixTimestamp64Nano(toInt64({start:Int64} + intDiv(toInt128(number) * {span:Int64}, {total:UInt64}) + (h % 1000000))) AS ts,
  ts,
  ts + toIntervalMillisecond(50 + h % 200),
  concat(b, '00000000'),
  if(r >= {derived:UInt32}, lower(hex(MD5(toString(number)))), concat(b, leftPad(lower(hex(toUInt32(number % 1000))), 8, '0'))),
  multiIf(s < 600, 9, s < 800, 5, s < 900, 13, s < 970, 1, s < 995, 17, 21),
  multiIf(s < 600, 'INFO', s < 800, 'DEBUG', s < 900, 'WARN', s < 970, 'TRACE', s < 995, 'ERROR', 'FATAL'),
  multiIf(
    number % ${RARE_EVERY} = 17, concat('kernel panic: checksum mismatch zq', toString(intDiv(number, ${RARE_EVERY}) % ${RARE_TOKENS}), ' on block ', toString(number)),
    m < 30, concat('GET /api/v1/orders/', toString(h % 5000000), ' 200 in ', toString(h % 900), 'ms'),
    m < 45, concat('user ', toString(h % 300000), ' logged in from 10.0.', toString(h % 256), '.', toString(intDiv(h, 256) % 256)),
    m < 60, concat('cache miss for key session:', substring(lower(hex(h)), 1, 12)),
    m < 70, concat('payment ', toString(h % 9000000), ' authorized amount=', toString(h % 100000 / 100), ' currency=EUR'),
    m < 80, concat('connection refused to db-', toString(h % 8), '.internal:5432, retrying in ', toString(h % 30), 's'),
    m < 90, concat('slow query took ', toString(h % 5000), 'ms: SELECT * FROM orders WHERE id = ', toString(h % 5000000)),
    concat('worker ', toString(h % 64), ' processed job ', lower(hex(intDiv(h, 7))), ' status=', ['ok', 'retry', 'failed'][1 + h % 3])),
  ['api', 'worker', 'db', 'auth'][1 + r % 4],
  map('http.method', ['GET', 'POST', 'PUT', 'DELETE'][1 + h % 4], 'http.status', toString([200, 201, 404, 500][1 + intDiv(h, 4) % 4]), 'user.id', toString(h % 300000)),
  map('service.name', concat('svc-', toString(r)), 'host.name', concat('host-', toString(r % 10))),
  'bench', '1.0',
  if(h % 10 < 7, lower(hex(MD5(concat(toString(r), '-', toString(intDiv(number, 500)))))), ''),
  substring(lower(hex(MD5(concat('s', toString(number))))), 1, 16),
  0
FROM (SELECT number, number % {resources:UInt32} AS r, cityHash64(number) AS h, h % 1000 AS s, intDiv(h, 1000) % 100 AS m,
        substring(lower(hex(MD5(toString(intDiv(number, 1000))))), 1, 24) AS b
      FROM numbers({offset:UInt64}, {count:UInt64}))`,
    params: {
      ws: workspaceId, rids: resourceIds, start: (s.endNs - spanNs).toString(), span: spanNs.toString(), total: s.rows,
      resources: s.resources, offset, count, derived: s.resources - senderIdResources(s),
    },
  }
}

/** Where the k-th rare line is: its row number, resource index and token. */
export function rareLine(k: number, s: Shape): { number: number; resource: number; token: string } {
  const number = k * RARE_EVERY + 17
  return { number, resource: number % s.resources, token: `zq${k % RARE_TOKENS}` }
}

/** A trace id of the set (about 7 lines of one resource share it), from a row number whose line carries one. */
export function traceOf(number: number, s: Shape): { traceId: string; resource: number } {
  const resource = number % s.resources
  return { traceId: createHash('md5').update(`${resource}-${Math.floor(number / 500)}`).digest('hex'), resource }
}
