import { Session } from 'chdb'
import { readFileSync } from 'node:fs'
import { EVENT_COLUMNS } from '/work/main/query/sql.ts'
import { engineArgs } from '/work/main/ingest/store/engine-settings.ts'
const dir = process.argv[2] as string
const meta = JSON.parse(readFileSync(dir + '/bench.json', 'utf8'))
const s = new Session(dir + '/clickhouse', { connectionArgs: engineArgs() })
const end = BigInt(meta.endNs) + 60_000_000_000n
const S = ' SETTINGS use_uncompressed_cache = 1, optimize_functions_to_subcolumns = 0'
const only = process.argv[3]
const shapes0: Record<string, (i: number) => string> = {
  newestAll: (i) => { const hi = end - BigInt(i) * 7_000_000_000n; return `SELECT ${EVENT_COLUMNS} FROM lookout.logs WHERE workspace_id = '${meta.ws}' AND timestamp >= fromUnixTimestamp64Nano(${hi - 900_000_000_000n}) AND timestamp < fromUnixTimestamp64Nano(${hi}) ORDER BY timestamp DESC, event_id DESC, resource_id DESC LIMIT 101` + S },
  facetsAllHour: (i) => { const hi = end - BigInt(i) * 7_000_000_000n; return `SELECT v, n, sum(n) OVER () AS total FROM (SELECT resource_attributes['service.name'] AS v, count() AS n FROM lookout.logs WHERE workspace_id = '${meta.ws}' AND timestamp >= fromUnixTimestamp64Nano(${hi - 3_600_000_000_000n}) AND timestamp < fromUnixTimestamp64Nano(${hi}) AND mapContains(resource_attributes, 'service.name') GROUP BY v) ORDER BY n DESC, v ASC LIMIT 10` + S },
  facetsOneDay: (i) => { const r = meta.rids[i % 50]; const hi = end - BigInt(i) * 7_000_000_000n; return `SELECT v, n, sum(n) OVER () AS total FROM (SELECT attributes['http.status'] AS v, count() AS n FROM lookout.logs WHERE workspace_id = '${meta.ws}' AND resource_id = '${r}' AND timestamp >= fromUnixTimestamp64Nano(${hi - 86_400_000_000_000n}) AND timestamp < fromUnixTimestamp64Nano(${hi}) AND mapContains(attributes, 'http.status') GROUP BY v) ORDER BY n DESC, v ASC LIMIT 10` + S },
  rareAll: (i) => `SELECT ${EVENT_COLUMNS} FROM lookout.logs WHERE workspace_id = '${meta.ws}' AND ((hasAllTokens(lower(message), ['zq${i + 3}']) AND positionCaseInsensitiveUTF8(message, 'zq${i + 3}') > 0)) ORDER BY timestamp DESC, event_id DESC, resource_id DESC LIMIT 101` + S + ', use_skip_indexes_on_data_read = 0',
  severityDay: (i) => { const r = meta.rids[i % 50]; const hi = end - BigInt(i) * 7_000_000_000n; return `SELECT ${EVENT_COLUMNS} FROM lookout.logs WHERE workspace_id = '${meta.ws}' AND resource_id = '${r}' AND severity_number >= 17 AND timestamp >= fromUnixTimestamp64Nano(${hi - 86_400_000_000_000n}) AND timestamp < fromUnixTimestamp64Nano(${hi}) ORDER BY timestamp DESC, event_id DESC, resource_id DESC LIMIT 101` + S },
}
const shapes: Record<string, (i: number) => string> = {}
for (const [k, f] of Object.entries(shapes0)) if (only === undefined || k.startsWith(only)) shapes[k] = f
if (only === 'facetsAllHour') {
  const f = shapes0.facetsAllHour!
  shapes.nocache = (i) => f(i).replace('use_uncompressed_cache = 1', 'use_uncompressed_cache = 0')
  shapes.subcol = (i) => f(i).replace('optimize_functions_to_subcolumns = 0', 'optimize_functions_to_subcolumns = 1')
  shapes.countOnly = (i) => f(i).replace(`resource_attributes['service.name'] AS v`, 'resource_id AS v').replace(` AND mapContains(resource_attributes, 'service.name')`, '')
}
const N = 40
for (const [name, mk] of Object.entries(shapes)) {
  const t: number[] = []
  for (let i = 0; i < N; i++) { const q = mk(i); const t0 = performance.now(); s.query(q, 'JSON'); t.push(performance.now() - t0) }
  t.sort((a, b) => a - b)
  console.log(dir.padEnd(22), name.padEnd(14), 'p50', t[N / 2]!.toFixed(1).padStart(6), 'p90', t[Math.floor(N * 0.9)]!.toFixed(1).padStart(6), 'max', t[N - 1]!.toFixed(1).padStart(6))
}
if (only === 'rareSplit') {
  const term = (i: number) => `((hasAllTokens(lower(message), ['zq${i + 3}']) AND positionCaseInsensitiveUTF8(message, 'zq${i + 3}') > 0) OR (hasAllTokens(arrayMap(v -> lower(v), mapValues(attributes)), ['zq${i + 3}']) AND arrayExists(v -> hasAllTokens(lower(v), ['zq${i + 3}']) AND positionCaseInsensitiveUTF8(v, 'zq${i + 3}') > 0, mapValues(attributes))))`
  const q = (i: number, lo: bigint | null, hi: bigint | null) => `SELECT ${EVENT_COLUMNS} FROM lookout.logs WHERE workspace_id = '${meta.ws}' AND ${term(i)}${lo === null ? '' : ` AND timestamp >= fromUnixTimestamp64Nano(${lo})`}${hi === null ? '' : ` AND timestamp < fromUnixTimestamp64Nano(${hi})`} ORDER BY timestamp DESC, event_id DESC, resource_id DESC LIMIT 101` + S + ', use_skip_indexes_on_data_read = 0'
  const variants: Record<string, (i: number) => string> = {
    first15min: (i) => q(i, end - 900_000_000_000n, null),
    rest: (i) => q(i, null, end - 900_000_000_000n),
    whole: (i) => q(i, null, null),
  }
  for (const [name, mk] of Object.entries(variants)) {
    const t: number[] = []
    for (let i = 0; i < N; i++) { const x = mk(i + 100 + 50 * Object.keys(variants).indexOf(name) + Number(process.env.OFF ?? 0)); const t0 = performance.now(); s.query(x, 'JSON'); t.push(performance.now() - t0) }
    t.sort((a, b) => a - b)
    console.log(dir.padEnd(22), name.padEnd(14), 'p50', t[N / 2]!.toFixed(1).padStart(6), 'p90', t[Math.floor(N * 0.9)]!.toFixed(1).padStart(6), 'max', t[N - 1]!.toFixed(1).padStart(6))
  }
}
if (only === 'context') {
  // Sample events spread over the 7 days, one per run, each in its own resource.
  const picks: { rid: string; eid: string; ts: string }[] = []
  for (let i = 0; i < N; i++) {
    const rid = meta.rids[i % 50]
    const at = end - BigInt(i) * 3_600_000_000_000n * 4n
    const r = JSON.parse(s.query(`SELECT toString(resource_id) AS rid, event_id AS eid, toString(toUnixTimestamp64Nano(timestamp)) AS ts FROM lookout.logs WHERE workspace_id = '${meta.ws}' AND resource_id = '${rid}' AND timestamp < fromUnixTimestamp64Nano(${at}) ORDER BY timestamp DESC LIMIT 1`, 'JSON').toString()).data[0]
    picks.push(r)
  }
  const where = (p: { rid: string }) => `workspace_id = '${meta.ws}' AND resource_id = '${p.rid}'`
  const lookup = (p: typeof picks[0]) => `SELECT ${EVENT_COLUMNS} FROM lookout.logs WHERE ${where(p)} AND event_id = '${p.eid}' ORDER BY timestamp DESC LIMIT 1` + S + ', use_skip_indexes_on_data_read = 0'
  const sides = (p: typeof picks[0]) => { const ts = BigInt(p.ts); const a = `fromUnixTimestamp64Nano(${ts})`; return `SELECT * FROM (SELECT 0 AS side, ${EVENT_COLUMNS} FROM lookout.logs WHERE ${where(p)} AND timestamp >= fromUnixTimestamp64Nano(${ts - 3_600_000_000_000n}) AND timestamp <= ${a} AND (timestamp < ${a} OR event_id < '${p.eid}') ORDER BY timestamp DESC, event_id DESC LIMIT 51) UNION ALL SELECT * FROM (SELECT 1 AS side, ${EVENT_COLUMNS} FROM lookout.logs WHERE ${where(p)} AND timestamp >= ${a} AND (timestamp > ${a} OR event_id > '${p.eid}') AND timestamp < fromUnixTimestamp64Nano(${ts + 3_600_000_000_000n}) ORDER BY timestamp, event_id LIMIT 51)` + S }
  const variants: Record<string, (p: typeof picks[0]) => string> = { lookup, sides }
  for (const [name, mk] of Object.entries(variants)) {
    const t: number[] = []
    for (const p of picks) { const x = mk(p); const t0 = performance.now(); s.query(x, 'JSON'); t.push(performance.now() - t0) }
    t.sort((a, b) => a - b)
    console.log(dir.padEnd(22), name.padEnd(14), 'p50', t[N / 2]!.toFixed(1).padStart(6), 'p90', t[Math.floor(N * 0.9)]!.toFixed(1).padStart(6), 'max', t[N - 1]!.toFixed(1).padStart(6))
  }
}
if (only === 'needle') {
  const ATTR = 'arrayMap(v -> lower(v), mapValues(attributes))'
  const picks: { rid: string; v: string }[] = []
  for (let i = 0; i < N; i++) {
    const rid = meta.rids[i % 50]
    const at = end - BigInt(i) * 3_600_000_000_000n * 4n
    const r = JSON.parse(s.query(`SELECT toString(resource_id) AS rid, attributes['user.id'] AS v FROM lookout.logs WHERE workspace_id = '${meta.ws}' AND resource_id = '${rid}' AND timestamp < fromUnixTimestamp64Nano(${at}) AND mapContains(attributes, 'user.id') ORDER BY timestamp DESC LIMIT 1`, 'JSON').toString()).data[0]
    picks.push(r)
  }
  const tokens = (v: string) => `[${v.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).map((x) => `'${x}'`).join(',')}]`
  const q = (p: { rid: string; v: string }, lo: bigint | null, hi: bigint | null, up: boolean) => `SELECT ${EVENT_COLUMNS} FROM lookout.logs WHERE workspace_id = '${meta.ws}' AND resource_id = '${p.rid}' AND (hasAllTokens(${ATTR}, ${tokens(p.v)}) AND attributes['user.id'] = '${p.v}')${lo === null ? '' : ` AND timestamp >= fromUnixTimestamp64Nano(${lo})`}${hi === null ? '' : ` AND timestamp < fromUnixTimestamp64Nano(${hi})`} ORDER BY timestamp DESC, event_id DESC, resource_id DESC LIMIT 101` + S + (up ? ', use_skip_indexes_on_data_read = 0' : '')
  const common = (p: { rid: string }, up: boolean) => `SELECT ${EVENT_COLUMNS} FROM lookout.logs WHERE workspace_id = '${meta.ws}' AND resource_id = '${p.rid}' AND (hasAllTokens(${ATTR}, ['500']) AND attributes['http.status'] = '500') AND timestamp < fromUnixTimestamp64Nano(${end - 86_400_000_000_000n}) ORDER BY timestamp DESC, event_id DESC, resource_id DESC LIMIT 101` + S + (up ? ', use_skip_indexes_on_data_read = 0' : '')
  const m15 = 900_000_000_000n
  const variants: Record<string, (p: { rid: string; v: string }) => string[]> = {
    two: (p) => [q(p, end - m15, null, false), q(p, null, null, true)],
    today3: (p) => [q(p, end - m15, null, false), q(p, end - 64n * m15, end - m15, true), q(p, null, end - 64n * m15, true)],
    commonWhole: (p) => [common(p, true)],
  }
  for (const [name, mk] of Object.entries(variants)) {
    const t: number[] = []
    for (const p of picks) { const xs = mk(p); const t0 = performance.now(); for (const x of xs) s.query(x, 'JSON'); t.push(performance.now() - t0) }
    t.sort((a, b) => a - b)
    console.log(dir.padEnd(22), name.padEnd(14), 'p50', t[N / 2]!.toFixed(1).padStart(6), 'p90', t[Math.floor(N * 0.9)]!.toFixed(1).padStart(6), 'max', t[N - 1]!.toFixed(1).padStart(6))
  }
}
