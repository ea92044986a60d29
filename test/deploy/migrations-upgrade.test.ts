// A data directory of the version whose portal migrations still altered workspace's
// and alerting's tables (portal 1 and 2) upgrades cleanly to the owners' own
// migrations (projects 5, notifications 3), and ends with the schema a fresh
// directory gets: same columns, same constraints (ON UPDATE CASCADE included).
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PG_MIGRATIONS } from '../../deploy/index.ts'
import { migrate, openPglite, type Database, type MigrationSet } from '../../core/index.ts'
import { PGLITE_TEMPLATES } from '../helpers/lookout.ts'

const sqlOf = (stage: string, version: number): string => PG_MIGRATIONS.find((set) => set.stage === stage)?.migrations.find((m) => m.version === version)?.sql as string
/** What the portal's migrations 1 and 2 ran on other stages' tables before the move: the owners' new migrations without IF NOT EXISTS. */
const PORTAL_1_FOREIGN = sqlOf('projects', 5).replaceAll('ADD COLUMN IF NOT EXISTS', 'ADD COLUMN')
const PORTAL_2_FOREIGN = sqlOf('notifications', 3).replaceAll('ADD COLUMN IF NOT EXISTS', 'ADD COLUMN')

/** The previous version's sets: without the owners' new migrations, the portal's with their old foreign statements. */
const PREVIOUS: MigrationSet[] = PG_MIGRATIONS.map((set) => {
  if (set.stage === 'projects') return { ...set, migrations: set.migrations.filter((m) => m.version < 5) }
  if (set.stage === 'notifications') return { ...set, migrations: set.migrations.filter((m) => m.version < 3) }
  // staff_kind(), new with the move of the webhook fan-out.
  if (set.stage === 'services') return { ...set, migrations: set.migrations.filter((m) => m.version < 3) }
  if (set.stage !== 'portal') return set
  return { ...set, migrations: set.migrations.map((m) => (m.version === 1 ? { ...m, sql: m.sql + PORTAL_1_FOREIGN } : m.version === 2 ? { ...m, sql: m.sql + PORTAL_2_FOREIGN } : m)) }
})

async function schema(db: Database): Promise<{ columns: string[]; constraints: string[]; triggers: string[]; indexes: string[] }> {
  const columns = await db.query<{ c: string }>(
    `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS c
     FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1`)
  const constraints = await db.query<{ c: string }>(
    `SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS c
     FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1`)
  const triggers = await db.query<{ c: string }>('SELECT pg_get_triggerdef(oid) AS c FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1')
  const indexes = await db.query<{ c: string }>("SELECT indexdef AS c FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1")
  return { columns: columns.rows.map((r) => r.c), constraints: constraints.rows.map((r) => r.c), triggers: triggers.rows.map((r) => r.c), indexes: indexes.rows.map((r) => r.c) }
}

t.test('a previous data directory upgrades to the schema of a fresh one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-migrations-upgrade-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const old = await openPglite(join(dir, 'old'), { templateDir: PGLITE_TEMPLATES })
  const fresh = await openPglite(join(dir, 'fresh'), { templateDir: PGLITE_TEMPLATES })
  t.teardown(async () => { await old.close(); await fresh.close() })

  await migrate(old, PREVIOUS)
  // projects 6 (the list document trigger skips an insert that brings its document) and 7 (edge indexes) came after that version.
  t.equal(await migrate(old, PG_MIGRATIONS), 5, 'the upgrade runs the two moved migrations, staff_kind() and projects 6 and 7, nothing else')
  await migrate(fresh, PG_MIGRATIONS)
  const [upgraded, made] = [await schema(old), await schema(fresh)]
  t.same(upgraded.columns, made.columns, 'same columns')
  t.same(upgraded.constraints, made.constraints, 'same constraints')
  t.same(upgraded.triggers, made.triggers, 'same triggers')
  t.same(upgraded.indexes, made.indexes, 'same indexes')
  // An adopted id cascades to both ends of the edges through an index, not a scan per row.
  t.ok(made.indexes.some((c) => c.includes('project_edges USING btree (from_id)')) && made.indexes.some((c) => c.includes('project_edges USING btree (to_id)')), 'edges are found by either end')
  t.ok(made.triggers.some((c) => c.includes('project_items_list_doc BEFORE INSERT') && c.includes('(new.list_doc IS NULL)')), 'an insert with its list document runs no trigger')
  t.ok(made.columns.some((c) => c.startsWith('project_workspaces.portal_shared boolean NO')), 'a fresh directory has portal_shared')
  t.ok(made.columns.some((c) => c.startsWith('notifications.source text NO')), 'and the inbox entry source')
  t.ok(made.constraints.some((c) => c.startsWith('project_items project_items_board_id_fkey') && c.includes('ON UPDATE CASCADE')), 'references follow an adopted id')
})
