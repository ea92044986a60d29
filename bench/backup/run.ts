// What a backup costs (deploy/backup.ts): a data directory holding N log lines
// (default 1,000,000), backed up while the service runs, then restored into
// another directory. Baseline, same run: a raw copy (cp -r) of the same
// clickhouse/ and postgres/ directories. Prints time and size of each and the ratios.
//   node bench/backup/run.ts [--rows 1000000]
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createBackup, loadConfig, restoreBackup, startLookout } from '../../deploy/index.ts'
import { createWorkspace, registerResource } from '../../workspace/index.ts'

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' } } })
const rows = Number(values.rows)
const base = mkdtempSync(join(tmpdir(), 'lookout-bench-backup-'))
const dataDir = join(base, 'data')
const du = (p: string) => Number(execFileSync('du', ['-sb', p]).toString().split('\t')[0])
const secs = (ms: number) => (ms / 1000).toFixed(2)
const mib = (b: number) => (b / 1048576).toFixed(1)
const cpuOf = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000

const config = loadConfig({ ...process.env, LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_HOST: '127.0.0.1' })
const lookout = await startLookout(config, { logger: false, secretKeyFile: true })
try {
  const ws = (await createWorkspace(lookout.db, 'bench')).id
  const rid = (await registerResource(lookout.db, ws, { external_id: 'web', name: 'web' })).resource.id
  const db = lookout.store.database
  // Log lines shaped like an access log, written straight into the log store (the pipeline is not what is measured).
  await lookout.store.command(`INSERT INTO ${db}.logs (workspace_id, resource_id, timestamp, observed_timestamp, received_at, batch_id, event_id,
      severity_number, severity_text, message, source, attributes, resource_attributes)
    SELECT toUUID('${ws}'), toUUID('${rid}'), now64(9) - toIntervalMillisecond(number * 50), now64(9), now64(9), toString(intDiv(number, 500)), toString(generateUUIDv4(number)),
      9, 'INFO', concat('GET /api/items/', toString(number % 5000), ' ', toString(if(number % 50 = 0, 500, 200)), ' ', toString(number % 997), 'ms user=', toString(number % 311)),
      'otlp', map('http.method', 'GET', 'http.route', '/api/items/{id}', 'user.id', toString(number % 311)), map('service.name', 'web', 'host.name', 'web-1')
    FROM numbers(${rows})`)
  const stored = (await lookout.store.query<{ n: string }>(`SELECT count() AS n FROM ${db}.logs`)).rows[0]?.n
  const stores = du(join(dataDir, 'clickhouse')) + du(join(dataDir, 'postgres'))

  // Baseline: a raw copy of the same directories.
  const copy = join(base, 'copy')
  let t0 = performance.now()
  execFileSync('cp', ['-r', join(dataDir, 'clickhouse'), join(dataDir, 'postgres'), '--target-directory', (execFileSync('mkdir', ['-p', copy]), copy)])
  const copyMs = performance.now() - t0
  const copyBytes = du(copy)

  t0 = performance.now()
  let c0 = process.cpuUsage()
  const m = await createBackup({ dataDir, db: lookout.db, store: lookout.store, broker: lookout.broker })
  const backupMs = performance.now() - t0
  const backupCpu = cpuOf(process.cpuUsage(c0))
  await lookout.stop()

  const target = join(base, 'restored')
  t0 = performance.now()
  c0 = process.cpuUsage()
  const r = await restoreBackup({ ...config, dataDir: target }, join(dataDir, 'backups', m.id), false)
  const restoreMs = performance.now() - t0
  const restoreCpu = cpuOf(process.cpuUsage(c0))

  console.log(`log lines: ${stored}; stores on disk: ${mib(stores)} MiB (clickhouse + postgres)`)
  console.log(`raw copy (baseline):  ${secs(copyMs)} s, ${mib(copyBytes)} MiB`)
  console.log(`backup create:        ${secs(backupMs)} s (${secs(backupCpu)} s CPU in this process), ${mib(m.bytes)} MiB: logs ${mib(m.logs.bytes)} MiB, postgres ${mib(m.postgres.bytes)} MiB`)
  console.log(`restore:              ${secs(restoreMs)} s (${secs(restoreCpu)} s CPU), ${r.logs.rows} rows`)
  console.log(`ratios to the raw copy: backup time ${(backupMs / copyMs).toFixed(2)}x, size ${(m.bytes / copyBytes).toFixed(2)}x; restore time ${(restoreMs / copyMs).toFixed(2)}x`)
} finally {
  await lookout.stop().catch(() => undefined)
  rmSync(base, { recursive: true, force: true })
}
