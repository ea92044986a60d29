// The tool catalogue: each tool is one route of the desktop service, its input
// schema that route's own request schema (plus the path's ids). Tools only
// build a request to a fixed route; none runs a command or reaches an
// arbitrary URL, and path ids are validated uuids before they enter a path.
import { SCOPES, TOOL_SCHEMAS, type Scope } from '../../api/index.ts'
import { DESKTOP_LOGS_QUERY } from '../../query/index.ts'

const S = TOOL_SCHEMAS
const uuid = { type: 'string', format: 'uuid' } as const
const WS = { workspace_id: { ...uuid, description: 'Workspace (default: the one this server acts in; see workspace_list)' } } as const
const ITEM_ID = { id: { ...uuid, description: 'The project item (task or note) id' } } as const

export interface ToolContext {
  /** The workspace of the acting principal, for routes whose path names one. */
  workspaceId: string
}

export interface ToolSpec {
  name: string
  description: string
  /** Changes data: hidden and refused with --read-only. */
  write: boolean
  /** The scope the route needs (null: any credential); tools a grant lacks are not listed. */
  scope: Scope | null
  /** Ajv schema of the arguments (route flavour: `nullable`). */
  input: object
  method: 'GET' | 'POST' | 'PATCH'
  /** Arguments that go into the path, not the query or body. */
  pathArgs: readonly string[]
  path(args: Record<string, unknown>, ctx: ToolContext): string
  /** Statuses that are answers, not failures (default 2xx). */
  answers?: readonly number[]
}

interface ObjectSchema {
  type?: string
  required?: readonly string[]
  properties?: Record<string, unknown>
  additionalProperties?: boolean
}

/** A route's query or body schema with extra (path) properties. */
function withArgs(base: ObjectSchema, extra: Record<string, unknown>, required: readonly string[] = []): object {
  return {
    ...base,
    type: 'object',
    additionalProperties: false,
    required: [...required, ...(base.required ?? [])],
    properties: { ...extra, ...base.properties },
  }
}

const enc = (v: unknown): string => encodeURIComponent(String(v))
const wsOf = (a: Record<string, unknown>, ctx: ToolContext): string => enc(a.workspace_id ?? ctx.workspaceId)
const item = (a: Record<string, unknown>): string => `/v1/projects/items/${enc(a.id)}`

/** Task and note edits in one schema: the route applies the item's own (task or note) schema. */
const ITEM_UPDATE = withArgs({
  ...S.TASK_PATCH,
  properties: { ...S.NOTE_PATCH.properties, ...S.TASK_PATCH.properties },
}, ITEM_ID, ['id'])

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
    write: false, scope: null, input: withArgs(S.RESOURCE_LIST_QUERY, WS), method: 'GET', pathArgs: ['workspace_id'],
    path: (a, ctx) => `/v1/workspaces/${wsOf(a, ctx)}/resources`,
  },
  {
    name: 'project_list',
    description: 'List project items (tasks and notes), newest first, with filters (board, status, type_ids and label_ids as comma-separated uuids, assignee, priority, due dates, q text search) and a cursor.',
    write: false, scope: SCOPES.projectRead, input: S.ITEM_LIST_QUERY, method: 'GET', pathArgs: [], path: () => '/v1/projects/items',
  },
  {
    name: 'project_get',
    description: 'Read one project item (task or note) with its revision, number, status, type, labels and assignment.',
    write: false, scope: SCOPES.projectRead, input: withArgs(S.WS_QUERY, ITEM_ID, ['id']), method: 'GET', pathArgs: ['id'], path: item,
  },
  {
    name: 'project_create',
    description: 'Create a task (default) or a note (item_type "note"). Needs a fresh idempotency_key (uuid): repeating the same call with the same key returns the same item.',
    write: true, scope: SCOPES.projectWrite, input: S.ITEM_CREATE, method: 'POST', pathArgs: [], path: () => '/v1/projects/items',
  },
  {
    name: 'project_update',
    description: 'Edit a task or note: give its id, the revision you read (a stale revision is refused with 409) and an idempotency_key; omitted fields stay as they are, null clears.',
    write: true, scope: SCOPES.projectWrite, input: ITEM_UPDATE, method: 'PATCH', pathArgs: ['id'], path: item,
  },
  {
    name: 'project_action',
    description: 'Run an action on an item: archive, trash, restore, or approval (with decision approve or changes). Needs the observed revision and an idempotency_key.',
    write: true, scope: SCOPES.projectWrite, input: withArgs(S.ITEM_ACTION, ITEM_ID, ['id']), method: 'POST', pathArgs: ['id'],
    path: (a) => `${item(a)}/actions`,
  },
  {
    name: 'project_history',
    description: 'The activity of one item (who changed what, when), newest first, with a cursor.',
    write: false, scope: SCOPES.projectRead, input: withArgs(S.HISTORY_QUERY, ITEM_ID, ['id']), method: 'GET', pathArgs: ['id'],
    path: (a) => `${item(a)}/history`,
  },
  {
    name: 'project_assignment',
    description: 'The assignment view of a task: assignee and whether it is active, revision, assignment_revision, deletion state and number.',
    write: false, scope: SCOPES.projectRead, input: withArgs(S.WS_QUERY, ITEM_ID, ['id']), method: 'GET', pathArgs: ['id'],
    path: (a) => `${item(a)}/assignment`,
  },
  {
    name: 'project_comments',
    description: 'The comments of a task, oldest first, with a cursor.',
    write: false, scope: SCOPES.projectRead, input: withArgs(S.COMMENTS_QUERY, { ...ITEM_ID, ...WS }, ['id']), method: 'GET',
    pathArgs: ['id', 'workspace_id'], path: (a, ctx) => `/v1/workspaces/${wsOf(a, ctx)}/tasks/${enc(a.id)}/comments`,
  },
  {
    name: 'project_comment_create',
    description: 'Add a comment to a task (body up to 4000 characters). Needs a fresh idempotency_key (uuid).',
    write: true, scope: SCOPES.projectWrite, input: withArgs(S.COMMENT_CREATE, { ...ITEM_ID, ...WS }, ['id']), method: 'POST',
    pathArgs: ['id', 'workspace_id'], path: (a, ctx) => `/v1/workspaces/${wsOf(a, ctx)}/tasks/${enc(a.id)}/comments`,
  },
  {
    name: 'project_boards',
    description: 'List the boards of the workspace.',
    write: false, scope: SCOPES.projectRead, input: S.BOARDS_QUERY, method: 'GET', pathArgs: [], path: () => '/v1/projects/boards',
  },
  {
    name: 'project_statuses',
    description: 'The statuses of a board (default board when board_id is omitted) with the catalogue revision.',
    write: false, scope: SCOPES.projectRead, input: S.STATUSES_QUERY, method: 'GET', pathArgs: [], path: () => '/v1/projects/statuses',
  },
  {
    name: 'project_members',
    description: 'The people tasks can be assigned to, with their task counts.',
    write: false, scope: SCOPES.projectRead, input: S.HISTORY_QUERY, method: 'GET', pathArgs: [], path: () => '/v1/projects/members',
  },
  {
    name: 'project_taxonomy',
    description: 'The task types and labels of the workspace with the catalogue revision (archived=true: the archived ones).',
    write: false, scope: SCOPES.projectRead, input: S.TAXONOMY_QUERY, method: 'GET', pathArgs: [], path: () => '/v1/projects/taxonomy',
  },
  {
    name: 'project_taxonomy_write',
    description: 'Change task types or labels: kind (type, label), operation (create, update, archive, default, reorder), the catalogue revision you read, an idempotency_key, and name, icon, id or order as the operation needs.',
    write: true, scope: SCOPES.projectWrite, input: S.TAXONOMY_WRITE, method: 'POST', pathArgs: [], path: () => '/v1/projects/taxonomy',
  },
  {
    name: 'project_relations',
    description: 'Relationships between items (blocks, relates_to, duplicates, parent_of), optionally of one item_id.',
    write: false, scope: SCOPES.projectRead, input: S.EDGES_QUERY, method: 'GET', pathArgs: [], path: () => '/v1/projects/edges',
  },
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
