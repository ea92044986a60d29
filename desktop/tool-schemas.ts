// The request schemas the stdio tool server (desktop/mcp) offers as tool
// inputs: the routes' own schemas, so a tool accepts exactly what its route does.
// The project_* tools take the portal's (cloud routes') request schemas and
// answer with their response bodies.
import {
  ACTION, COMMENT_CREATE, FILTER_QUERY, REVISION_INPUT, TASK_CREATE, TASK_MOVE, TASK_UPDATE, TAXONOMY_CONFIGURE,
} from '../workspace/index.ts'
import {
  ACTIVITY_PAGE, ASSIGNEE_PAGE, BOARD_PAGE, COMMENT_PAGE, COMMENT_VIEW, STATUS_CATALOGUE, TASK_PAGE, TASK_VIEW, TAXONOMY_CATALOGUE,
} from '../workspace/index.ts'
import { DESKTOP_MONITORING_QUERY } from '../monitor/index.ts'
import { RESOURCE_LIST_QUERY } from '../workspace/index.ts'
import { NOTIFICATIONS_QUERY } from '../alerting/index.ts'

export const TOOL_SCHEMAS = { DESKTOP_MONITORING_QUERY, RESOURCE_LIST_QUERY, NOTIFICATIONS_QUERY } as const

/** The portal's request schemas (cloud-workspace-api.md names): the same objects the cloud routes validate with. */
export const PORTAL_REQUEST_SCHEMAS = {
  FILTER_QUERY, TASK_CREATE, TASK_UPDATE, TASK_MOVE, ACTION, REVISION_INPUT, COMMENT_CREATE, TAXONOMY_CONFIGURE,
} as const

/** The cloud project routes' response bodies (plain JSON Schema). */
export const PORTAL_RESPONSE_SCHEMAS = {
  TASK_VIEW, TASK_PAGE, COMMENT_VIEW, COMMENT_PAGE, BOARD_PAGE, STATUS_CATALOGUE, TAXONOMY_CATALOGUE, ACTIVITY_PAGE, ASSIGNEE_PAGE,
} as const
