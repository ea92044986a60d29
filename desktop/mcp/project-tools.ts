// The 15 project_* tools: the portal's (cloud) project routes, served by the
// desktop service under /v1/workspaces/{workspace_id}/..., with the portal's
// own request schemas as inputs (plus the path parameters workspace_id,
// optional, and item_id) and the routes' response bodies as outputs.
import { PORTAL_REQUEST_SCHEMAS as Q, PORTAL_RESPONSE_SCHEMAS as R } from '../tool-schemas.ts'
import { SCOPES } from '../../workspace/index.ts'
import { enc, uuid, withPath, wsOf, WS_ARG, type ObjectSchema, type ToolContext, type ToolSpec } from './tool-spec.ts'

const ITEM_ARG = { item_id: { ...uuid, description: 'The task id (path parameter item_id)' } } as const

type Args = Record<string, unknown>
const ws = (a: Args, ctx: ToolContext): string => `/v1/workspaces/${wsOf(a, ctx)}`
const task = (a: Args, ctx: ToolContext): string => `${ws(a, ctx)}/tasks/${enc(a.item_id)}`

interface PortalTool {
  name: string
  description: string
  write: boolean
  method: ToolSpec['method']
  /** The cloud route's request schema (its body, or the filter set for reads). */
  request: ObjectSchema
  response: object
  /** The route has an item_id in its path. */
  item: boolean
  path(a: Args, ctx: ToolContext): string
}

function tool(t: PortalTool): ToolSpec {
  const path = t.item ? { ...WS_ARG, ...ITEM_ARG } : WS_ARG
  return {
    name: t.name,
    description: t.description,
    write: t.write,
    scope: t.write ? SCOPES.projectWrite : SCOPES.projectRead,
    input: withPath(t.request, path, t.item ? ['item_id'] : []),
    output: t.response,
    request: t.request,
    method: t.method,
    pathArgs: Object.keys(path),
    path: t.path,
  }
}

const FILTERS = 'Filters: board_id, status_id, state, q, type_ids, label_ids, assignee_id, unassigned, priority, due_before, due_after, kind, deliverable_id, archived, deleted; limit (max 100) and cursor.'

export const PROJECT_TOOLS: readonly ToolSpec[] = [
  tool({
    name: 'project_list', description: `List tasks (GET P/tasks, the portal's filter set), with a cursor. ${FILTERS}`,
    write: false, method: 'GET', request: Q.FILTER_QUERY, response: R.TASK_PAGE, item: false, path: (a, c) => `${ws(a, c)}/tasks`,
  }),
  tool({
    name: 'project_get', description: 'Read one task (GET P/tasks/{item_id}) with its revision, number, status, type, labels, state and assignee.',
    write: false, method: 'GET', request: Q.FILTER_QUERY, response: R.TASK_VIEW, item: true, path: task,
  }),
  tool({
    name: 'project_create', description: 'Create a task (POST P/tasks, TaskCreate): title and a fresh idempotency_key (uuid); repeating the same call with the same key returns the same task.',
    write: true, method: 'POST', request: Q.TASK_CREATE, response: R.TASK_VIEW, item: false, path: (a, c) => `${ws(a, c)}/tasks`,
  }),
  tool({
    name: 'project_update', description: 'Edit a task (PATCH P/tasks/{item_id}, TaskUpdate): the revision you read (a stale one is refused with 409); omitted fields stay, null clears.',
    write: true, method: 'PATCH', request: Q.TASK_UPDATE, response: R.TASK_VIEW, item: true, path: task,
  }),
  tool({
    name: 'project_action', description: 'Run a workflow action on a task (POST P/tasks/{item_id}/actions, Action): work, claim, approve, changes, state, reopen, archive, restore, update; needs the observed revision.',
    write: true, method: 'POST', request: Q.ACTION, response: R.TASK_VIEW, item: true, path: (a, c) => `${task(a, c)}/actions`,
  }),
  tool({
    name: 'project_move', description: 'Move a task to another board and status (POST P/tasks/{item_id}/move, TaskMove): revision, target_board_id, target_status_id.',
    write: true, method: 'POST', request: Q.TASK_MOVE, response: R.TASK_VIEW, item: true, path: (a, c) => `${task(a, c)}/move`,
  }),
  tool({
    name: 'project_delete', description: 'Move a task to the trash (DELETE P/tasks/{item_id}, RevisionInput): the observed revision; the action restore brings it back.',
    write: true, method: 'DELETE', request: Q.REVISION_INPUT, response: R.TASK_VIEW, item: true, path: task,
  }),
  tool({
    name: 'project_comments', description: 'The comments of a task, oldest first (GET P/tasks/{item_id}/comments, the filter set: q, deleted, limit, cursor).',
    write: false, method: 'GET', request: Q.FILTER_QUERY, response: R.COMMENT_PAGE, item: true, path: (a, c) => `${task(a, c)}/comments`,
  }),
  tool({
    name: 'project_comment_create', description: 'Add a comment to a task (POST P/tasks/{item_id}/comments, CommentCreate): body up to 4000 characters and a fresh idempotency_key (uuid).',
    write: true, method: 'POST', request: Q.COMMENT_CREATE, response: R.COMMENT_VIEW, item: true, path: (a, c) => `${task(a, c)}/comments`,
  }),
  tool({
    name: 'project_boards', description: 'List the boards of the workspace (GET P/project/boards, the filter set).',
    write: false, method: 'GET', request: Q.FILTER_QUERY, response: R.BOARD_PAGE, item: false, path: (a, c) => `${ws(a, c)}/project/boards`,
  }),
  tool({
    name: 'project_statuses', description: 'The statuses of a board (GET P/project/statuses; the default board when board_id is omitted) with the catalogue revision.',
    write: false, method: 'GET', request: Q.FILTER_QUERY, response: R.STATUS_CATALOGUE, item: false, path: (a, c) => `${ws(a, c)}/project/statuses`,
  }),
  tool({
    name: 'project_taxonomy', description: 'The task types and labels of the workspace with the catalogue revision (GET P/project/taxonomy; archived=true: the archived ones).',
    write: false, method: 'GET', request: Q.FILTER_QUERY, response: R.TAXONOMY_CATALOGUE, item: false, path: (a, c) => `${ws(a, c)}/project/taxonomy`,
  }),
  tool({
    name: 'project_taxonomy_write', description: 'Change task types or labels (POST P/project/taxonomy, TaxonomyConfigure): kind (type, label), operation (create, update, archive, default, reorder), the catalogue revision you read, and name, icon, id or order as the operation needs.',
    write: true, method: 'POST', request: Q.TAXONOMY_CONFIGURE, response: R.TAXONOMY_CATALOGUE, item: false, path: (a, c) => `${ws(a, c)}/project/taxonomy`,
  }),
  tool({
    name: 'project_history', description: 'The project activity feed, newest first (GET P/project/activity, the filter set): who changed what, when, with the fields before and after.',
    write: false, method: 'GET', request: Q.FILTER_QUERY, response: R.ACTIVITY_PAGE, item: false, path: (a, c) => `${ws(a, c)}/project/activity`,
  }),
  tool({
    name: 'project_assignees', description: 'The people tasks can be assigned to (GET P/project/assignees, the filter set), with their open and total task counts; user_id is the assignee value.',
    write: false, method: 'GET', request: Q.FILTER_QUERY, response: R.ASSIGNEE_PAGE, item: false, path: (a, c) => `${ws(a, c)}/project/assignees`,
  }),
]
