// `lookout backup restore`: a backup (deploy/backup.ts) into a stopped data
// directory, on this machine or another. The project store is made from the
// dump and migrated to this version, the log rows are loaded into a new log
// store, the sealing key is put back, the broker starts empty (the backup holds
// no unstored event), and the webhook restore runs by itself: every
// subscription and pending delivery is cleared and the installation gets a
// fresh source identity, so no receiver can take the restored copy's events for
// the original's.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { migrate, openPglite } from '../core/index.ts'
import { PG_MIGRATIONS } from './migrations.ts'
import { restoreWebhooks } from '../alerting/index.ts'
import { migrateLogStore, openLogStore } from '../ingest/index.ts'
import { BACKUP_FILES, readBackup } from './backup.ts'
import type { LookoutConfig } from './config.ts'
import { RestoreRefusedError } from './errors.ts'
import { acquireDataDir, lockHolder } from './lock.ts'
import { secretKeyPath } from './secret-key.ts'

export interface RestoreResult {
  id: string
  data_dir: string
  logs: { rows: number }
  webhooks: { cleared_subscriptions: number; cancelled_deliveries: number; instance_id: string }
  duration_ms: number
}

/** What a data directory keeps that a restore replaces. */
export const RESTORED_STATE = ['postgres', 'clickhouse', 'nats'] as const
const STATE = RESTORED_STATE

export async function restoreBackup(config: LookoutConfig, ref: string, force: boolean): Promise<RestoreResult> {
  const started = Date.now()
  const { dir, manifest } = readBackup(config.dataDir, ref)
  const dataDir = config.dataDir
  const holder = lockHolder(dataDir)
  if (holder !== null) throw new RestoreRefusedError(`a service (pid ${holder}) runs on ${dataDir}: stop it, then restore`)
  const present = STATE.filter((d) => existsSync(join(dataDir, d)))
  if (present.length > 0 && !force) throw new RestoreRefusedError(`${dataDir} already holds data (${present.join(', ')}); --force replaces it`)
  const release = acquireDataDir(dataDir)
  try {
    for (const d of present) rmSync(join(dataDir, d), { recursive: true, force: true })
    if (manifest.secret_key) {
      const key = secretKeyPath(dataDir)
      mkdirSync(dirname(key), { recursive: true, mode: 0o700 })
      copyFileSync(join(dir, BACKUP_FILES.key), key)
      chmodSync(key, 0o600)
    }
    const tar = readFileSync(join(dir, BACKUP_FILES.postgres))
    const db = await openPglite(join(dataDir, 'postgres'), { loadDataDir: new Blob([tar]) })
    let webhooks
    try {
      await migrate(db, PG_MIGRATIONS)
      webhooks = await restoreWebhooks(db)
    } finally {
      await db.close()
    }
    let rows = 0
    mkdirSync(join(dataDir, 'clickhouse'), { recursive: true })
    const store = await openLogStore({ path: join(dataDir, 'clickhouse'), layout: config.clickhouseLayout, cluster: config.clickhouseCluster })
    try {
      await migrateLogStore(store, { retentionDays: config.retentionDays, layout: config.clickhouseLayout, cluster: config.clickhouseCluster })
      if (manifest.logs.rows > 0) {
        const file = join(dir, BACKUP_FILES.logs).replace(/'/g, "\\'")
        await store.command(`INSERT INTO ${store.database}.logs SELECT * FROM file('${file}', 'Native')`)
        const n = await store.query<{ n: string }>(`SELECT count() AS n FROM ${store.database}.logs`)
        rows = Number(n.rows[0]?.n ?? 0)
      }
    } finally {
      await store.close()
    }
    return {
      id: manifest.id, data_dir: dataDir, logs: { rows },
      webhooks: { cleared_subscriptions: webhooks.cleared_subscriptions, cancelled_deliveries: webhooks.cancelled_deliveries, instance_id: webhooks.instance_id },
      duration_ms: Date.now() - started,
    }
  } finally {
    release()
  }
}
