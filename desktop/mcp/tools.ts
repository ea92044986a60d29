// The tool catalogue: each tool is one route of the desktop service, its input
// schema that route's own request schema (plus the path's ids). Tools only
// build a request to a fixed route; none runs a command or reaches an
// arbitrary URL, and path ids are validated uuids before they enter a path.
import { TOOL_SCHEMAS } from '../tool-schemas.ts'
import { SCOPES } from '../../workspace/index.ts'
import { DESKTOP_LOGS_QUERY } from '../../query/index.ts'
import { PROJECT_TOOLS } from './project-tools.ts'
import { withArgs, wsOf, WS_ARG, type ToolSpec } from './tool-spec.ts'

export type { ToolContext, ToolSpec } from './tool-spec.ts'

const S = TOOL_SCHEMAS

const NO_ARGS = { type: 'object', additionalProperties: false, properties: {} } as const

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'workspace_list',
    description: 'List the workspaces this server can act in (the local owner: all; a grant: its own). Use an id as workspace_id in other tools.',
    write: false, scope: null, input: NO_ARGS, method: 'GET', pathArgs: [], path: () => '/v1/workspaces',
  },
  {
    name: 'resource_list',
    description: 'List the resources (websites, servers, databases...) of a workspace, to find the resource_id that logs_query and monitoring_query take.',
    write: false, scope: null, input: withArgs(S.RESOURCE_LIST_QUERY, WS_ARG), method: 'GET', pathArgs: ['workspace_id'],
    path: (a, ctx) => `/v1/workspaces/${wsOf(a, ctx)}/resources`,
  },
  ...PROJECT_TOOLS,
  {
    name: 'logs_query',
    description: 'Search stored logs, newest first: resource_id, since/until (ISO 8601), severity, text, limit (max 100) and the cursor of the previous page (keep the same filters). Read-only.',
    write: false, scope: SCOPES.logsRead, input: DESKTOP_LOGS_QUERY, method: 'GET', pathArgs: [], path: () => '/v1/logs',
  },
  {
    name: 'notifications_read',
    description: 'Read notifications (incidents, recoveries): query text, notification_id, filter (all, unread, archived), page (from 1), limit (max 50). Returns items and next_page; never marks anything read.',
    write: false, scope: SCOPES.notificationsRead, input: S.NOTIFICATIONS_QUERY, method: 'GET', pathArgs: [], path: () => '/v1/notifications',
  },
  {
    name: 'monitoring_query',
    description: 'Health of one resource: its checks, aggregate health (healthy, unhealthy, unknown), incidents and transition history. Read-only.',
    write: false, scope: SCOPES.monitorRead, input: S.DESKTOP_MONITORING_QUERY, method: 'GET', pathArgs: [], path: () => '/v1/monitoring',
  },
  {
    name: 'service_health',
    description: 'Whether the desktop service itself is ready: the state of each of its dependencies (log store, database, broker, workers).',
    write: false, scope: null, input: NO_ARGS, method: 'GET', pathArgs: [], path: () => '/v1/ready', answers: [200, 503],
  },
]
