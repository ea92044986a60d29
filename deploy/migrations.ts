// Every stage's PostgreSQL migrations, in the order they are applied: assembled
// where the process is composed, from each stage's own set (a distinct stage
// name keeps their version numbers apart).
import { SERVER_SECRET_MIGRATIONS, type MigrationSet } from '../core/index.ts'
import { COLLECTOR_MIGRATIONS, MONITOR_MIGRATIONS } from '../monitor/index.ts'
import { IDENTITY_MIGRATIONS, PROJECT_MIGRATIONS, SERVICES_MIGRATIONS, SSH_MIGRATIONS, USAGE_MIGRATIONS } from '../workspace/index.ts'
import { ALERT_MIGRATIONS, NOTIFICATION_MIGRATIONS, WEBHOOK_MIGRATIONS } from '../alerting/index.ts'
import { DESKTOP_MIGRATIONS, PORTAL_MIGRATIONS } from '../desktop/index.ts'
import { CONSOLE_MIGRATIONS } from '../console/index.ts'
import { QUERY_MIGRATIONS } from '../query/index.ts'

export const PG_MIGRATIONS: readonly MigrationSet[] = [
  SERVER_SECRET_MIGRATIONS,
  IDENTITY_MIGRATIONS,
  PROJECT_MIGRATIONS,
  SERVICES_MIGRATIONS,
  SSH_MIGRATIONS,
  USAGE_MIGRATIONS,
  MONITOR_MIGRATIONS,
  COLLECTOR_MIGRATIONS,
  ALERT_MIGRATIONS, NOTIFICATION_MIGRATIONS, WEBHOOK_MIGRATIONS,
  DESKTOP_MIGRATIONS,
  CONSOLE_MIGRATIONS,
  PORTAL_MIGRATIONS,
  QUERY_MIGRATIONS,
]
