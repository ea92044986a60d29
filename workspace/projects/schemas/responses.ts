// Response bodies of the cloud project routes as plain JSON Schema (the
// contract publishes empty response schemas; these describe what the routes
// send). Every listed field is always present; null only where marked. Extra
// fields are allowed so an additive change of the contract does not break a
// client that validates with them (the stdio tool server's outputSchema).
import { NOTE_COLORS, PRIORITIES, STATUS_CATEGORIES, STATUS_COLORS, TASK_KINDS, TAXONOMY_ICONS, TAXONOMY_KINDS, VISIBILITIES } from './fields.ts'
import { WORK_STATES } from '../state-model.ts'

const uuid = { type: 'string', format: 'uuid' } as const
const nuuid = { type: ['string', 'null'], format: 'uuid' } as const
const time = { type: 'string', format: 'date-time' } as const
const ntime = { type: ['string', 'null'], format: 'date-time' } as const
const ndate = { type: ['string', 'null'], format: 'date' } as const
const nuser = { type: ['integer', 'null'], exclusiveMinimum: 0 } as const
const int = { type: 'integer' } as const
const str = { type: 'string' } as const
const bool = { type: 'boolean' } as const
const nullable = <T extends readonly string[]>(values: T) => ({ type: ['string', 'null'], enum: [...values, null] }) as const

function object<P extends Record<string, unknown>>(properties: P) {
  return { type: 'object', required: Object.keys(properties), properties } as const
}

/** A page of a list route: `items` and the cursor of the next page (null on the last). */
function page(item: object) {
  return object({ items: { type: 'array', items: item }, next_cursor: { type: ['string', 'null'] } })
}

/** The closing fields of every item view (tasks and notes), in this order. */
const ITEM_LIFECYCLE = {
  archived: bool,
  archived_at: ntime,
  deleted: bool,
  deleted_at: ntime,
  revision: { type: 'integer', minimum: 1 },
  created_by: nuser,
  created_at: time,
  updated_at: time,
} as const

/** A task (GET/POST/PATCH/DELETE P/tasks..., actions, move). */
export const TASK_VIEW = object({
  id: uuid,
  item_type: { const: 'task' },
  workspace_id: uuid,
  board_id: uuid,
  number: { type: ['integer', 'null'], minimum: 1 },
  kind: { type: 'string', enum: TASK_KINDS },
  title: str,
  description: str,
  acceptance: str,
  type_id: nuuid,
  label_ids: { type: 'array', items: uuid },
  status_id: nuuid,
  service: nuuid,
  deliverable: nuuid,
  source_ticket: nuuid,
  priority: nullable(PRIORITIES),
  assignee: nuser,
  reviewer: nuser,
  starts_on: ndate,
  due_on: ndate,
  state: nullable(Object.values(WORK_STATES)),
  blocked_reason: str,
  assignment_revision: int,
  origin: str,
  ...ITEM_LIFECYCLE,
})

/** A note (P/notes...). */
export const NOTE_VIEW = object({
  id: uuid,
  item_type: { const: 'note' },
  workspace_id: uuid,
  board_id: uuid,
  number: { type: 'null' },
  title: str,
  body: str,
  color: nullable(NOTE_COLORS),
  visibility: nullable(VISIBILITIES),
  ...ITEM_LIFECYCLE,
})

export const COMMENT_VIEW = object({
  id: uuid,
  item_id: uuid,
  body: str,
  visibility: { type: 'string', enum: VISIBILITIES },
  author: nuser,
  revision: { type: 'integer', minimum: 1 },
  deleted: bool,
  deleted_at: ntime,
  created_at: time,
  updated_at: time,
})

export const BOARD_VIEW = object({
  id: uuid,
  workspace_id: uuid,
  name: str,
  is_default: bool,
  revision: { type: 'integer', minimum: 1 },
  statuses_revision: str,
  archived: bool,
  archived_at: ntime,
  created_at: time,
  updated_at: time,
})

export const STATUS_VIEW = object({
  id: uuid,
  board_id: uuid,
  name: str,
  category: { type: 'string', enum: STATUS_CATEGORIES },
  color: { type: 'string', enum: STATUS_COLORS },
  position: int,
  is_default: bool,
  retired: bool,
  retired_at: ntime,
  replacement_id: nuuid,
})

/** GET and POST P/project/statuses: one board's statuses and the catalogue revision (BoardConfigure's `revision`). */
export const STATUS_CATALOGUE = object({ board_id: uuid, revision: str, items: { type: 'array', items: STATUS_VIEW } })

export const TAXONOMY_CHOICE = object({
  id: uuid,
  kind: { type: 'string', enum: TAXONOMY_KINDS },
  name: str,
  icon: nullable(TAXONOMY_ICONS),
  position: int,
  is_default: bool,
  archived: bool,
  archived_at: ntime,
})

/** GET and POST P/project/taxonomy: types, labels and the catalogue revision (TaxonomyConfigure's `revision`). */
export const TAXONOMY_CATALOGUE = object({
  workspace_id: uuid,
  revision: str,
  types: { type: 'array', items: TAXONOMY_CHOICE },
  labels: { type: 'array', items: TAXONOMY_CHOICE },
})

export const ACTIVITY_VIEW = object({
  id: uuid,
  board_id: nuuid,
  item_id: nuuid,
  entity: str,
  action: str,
  summary: str,
  actor: object({ token_id: str, user_id: nuser, owner: bool }),
  before: { type: ['object', 'null'] },
  after: { type: ['object', 'null'] },
  note: str,
  created_at: time,
})

export const ASSIGNEE_VIEW = object({
  user_id: { type: 'integer', exclusiveMinimum: 0 },
  id: { type: 'string', pattern: '^profile:[0-9]+$' },
  active: bool,
  open_tasks: { type: 'integer', minimum: 0 },
  tasks: { type: 'integer', minimum: 0 },
})

export const TASK_PAGE = page(TASK_VIEW)
export const NOTE_PAGE = page(NOTE_VIEW)
export const COMMENT_PAGE = page(COMMENT_VIEW)
export const BOARD_PAGE = page(BOARD_VIEW)
export const ACTIVITY_PAGE = page(ACTIVITY_VIEW)
export const ASSIGNEE_PAGE = page(ASSIGNEE_VIEW)
