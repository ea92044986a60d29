// A collector source (with its credential) and one required TCP check assigned
// to it, written straight to a migrated database: the start of the tests that
// push observations without going through the enrol and check routes.
import type { Database } from '../../core/index.ts'
import { createToken } from '../../workspace/index.ts'
import { createCheck, insertSource, parseConfig } from '../../monitor/index.ts'

export async function collectorSourceWithCheck(db: Database, workspaceId: string, resourceId: string) {
  const cred = await createToken(db, { workspaceId, scopes: ['monitor:heartbeat'], resources: [resourceId], kind: 'collector' })
  const s = await insertSource(db, { id: crypto.randomUUID(), workspaceId, resourceId, name: 'c', kind: 'collector', tokenId: cred.id })
  const cfg = parseConfig('tcp', { host: '10.0.0.1', port: 5432, interval_seconds: 60 })
  if (!cfg.ok) throw new Error('bad configuration')
  const check = await createCheck(db, {
    workspaceId, resourceId, name: 'db', kind: 'tcp', location: 'collector', config: cfg.config, credential: null,
    sourceId: s.id, enabled: true, required: true, maintenanceUntil: null, runNow: false,
  }, Date.now())
  return { source: { id: s.id, workspaceId, resourceId, name: 'c' }, token: cred.token, check }
}
