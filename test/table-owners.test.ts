// Tables belong to the stage that owns them (README "Layout"): a stage's SQL
// names only its own tables; another stage asks through the owner's surface.
// The import check (layout.test.ts) cannot see a table shared behind its back,
// so this reads every SQL string of the production code instead.
import t from 'tap'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/** The owner of every PostgreSQL table: the one place that says who may touch it. */
export const TABLE_OWNERS: Record<string, string> = {
  schema_migrations: 'core', server_secrets: 'core',
  workspaces: 'workspace', tokens: 'workspace', resources: 'workspace',
  project_workspaces: 'workspace', project_boards: 'workspace', project_statuses: 'workspace', project_taxonomy: 'workspace',
  project_items: 'workspace', project_comments: 'workspace', project_edges: 'workspace', project_activity: 'workspace',
  project_idempotency: 'workspace', project_events: 'workspace', project_tickets: 'workspace', project_ticket_replies: 'workspace',
  staff_members: 'workspace', services: 'workspace', service_time_entries: 'workspace', service_time_history: 'workspace',
  service_operations: 'workspace', resource_services: 'workspace', resource_ssh_keys: 'workspace',
  api_requests: 'workspace', api_usage_daily: 'workspace',
  monitor_checks: 'monitor', monitor_results: 'monitor', monitor_transitions: 'monitor', monitor_incidents: 'monitor',
  monitor_outbox: 'monitor', monitor_workers: 'monitor', monitor_sources: 'monitor',
  monitor_collector_observations: 'monitor',
  alert_destinations: 'alerting', alert_routes: 'alerting', alert_policies: 'alerting', alert_incidents: 'alerting',
  alert_deliveries: 'alerting', alert_delivery_attempts: 'alerting', alert_operations: 'alerting',
  // Alert channel choices: created by monitor's first migration, alerting's since its migration 3.
  monitor_subscriptions: 'alerting',
  notifications: 'alerting', notification_settings: 'alerting',
  webhook_subscriptions: 'alerting', webhook_deliveries: 'alerting', webhook_attempts: 'alerting',
  desktop_settings: 'desktop', desktop_forward_queue: 'desktop', desktop_forward_state: 'desktop',
  portal_connection: 'desktop', portal_id_map: 'desktop', portal_items: 'desktop', portal_outbox: 'desktop',
  portal_catalogue_base: 'desktop', portal_reviews: 'desktop', portal_records: 'desktop',
  console_sessions: 'console', console_signin_codes: 'console',
  alert_ack_links: 'alerting', notification_reads: 'alerting', monitor_uptime_hours: 'monitor',
  saved_searches: 'query',
}

/**
 * A foreign key names another stage's table without reading or writing it: allowed
 * to the tenancy root (every stage's rows belong to a workspace, a resource or a token).
 */
const REFERENCEABLE = new Set(['workspaces', 'resources', 'tokens'])

/**
 * Couplings still to be moved behind their owner's surface, each with a one-line
 * reason. The 29 this check found when it was written are all gone (workspace's
 * projects/sync, alerting's portal cache, the fan-out port, monitor's
 * openIncidentIds). The list may only shrink: an entry that no longer occurs
 * fails the test, as does anything new.
 */
const KNOWN: readonly string[] = []

const STAGES = ['core', 'tunnel', 'ingest', 'query', 'monitor', 'workspace', 'alerting', 'metrics', 'collector', 'desktop', 'console', 'api', 'deploy']
const root = new URL('..', import.meta.url).pathname

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.name.startsWith('.') || e.name === 'node_modules' || e.name === 'dist' || p === 'console/src') continue
    if (e.isDirectory()) sources(p, out)
    else if (e.name.endsWith('.ts')) out.push(p)
  }
  return out
}

const LITERAL = /`(?:[^`\\]|\\.)*`|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g
const CREATE = /\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:[a-z_]+\.)?(?!if\b)([a-z_][a-z0-9_]*)/gi
const NAMED = /\b(FROM|JOIN|INTO|UPDATE|TABLE|ON|REFERENCES|TRUNCATE)\s+(?:ONLY\s+|IF\s+(?:NOT\s+)?EXISTS\s+)?(?:[a-z_]+\.)?([a-z_][a-z0-9_]*)/gi

const created: string[] = []
const found: string[] = []
for (const stage of STAGES) {
  for (const file of sources(stage)) {
    for (const literal of readFileSync(join(root, file), 'utf8').match(LITERAL) ?? []) {
      for (const m of literal.matchAll(CREATE)) {
        const table = (m[1] ?? '').toLowerCase()
        if (TABLE_OWNERS[table] !== stage) created.push(`${file} creates ${table}, owned by ${TABLE_OWNERS[table] ?? 'nobody (add it to TABLE_OWNERS)'}`)
      }
      for (const m of literal.matchAll(NAMED)) {
        const keyword = (m[1] ?? '').toUpperCase()
        const table = (m[2] ?? '').toLowerCase()
        const owner = TABLE_OWNERS[table]
        if (owner === undefined || owner === stage) continue
        if (keyword === 'REFERENCES' && REFERENCEABLE.has(table)) continue
        found.push(`${file}: ${table} (${owner})`)
      }
    }
  }
}
const unique = [...new Set(found)].sort()

t.same(created, [], 'every table is created by the stage TABLE_OWNERS names')
t.same(unique.filter((f) => !KNOWN.includes(f)), [], 'no stage names a table of another stage')
t.same(KNOWN.filter((k) => !unique.includes(k)), [], 'every known coupling still occurs (remove the mended ones from KNOWN)')
t.ok(unique.length + created.length >= 0 && Object.keys(TABLE_OWNERS).length > 40, 'the owner map covers the schema')
