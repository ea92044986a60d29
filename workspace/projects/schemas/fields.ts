// Field shapes shared by the project request schemas, as the contract's tables
// give them ("> 0" is exclusiveMinimum 0, ">= 1" is minimum 1).

export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const
export const TASK_KINDS = ['task', 'service_ticket'] as const
export const TICKET_CATEGORIES = ['general', 'technical', 'billing', 'change'] as const
export const STATUS_CATEGORIES = ['todo', 'doing', 'done'] as const
export const STATUS_COLORS = ['gray', 'blue', 'orange', 'purple', 'green', 'pink', 'teal'] as const
export const NOTE_COLORS = ['yellow', 'blue', 'pink', 'green', 'orange', 'purple', 'teal', 'gray'] as const
export const VISIBILITIES = ['shared', 'internal'] as const
export const TAXONOMY_KINDS = ['type', 'label'] as const
export const TAXONOMY_OPERATIONS = ['create', 'update', 'archive', 'default', 'reorder'] as const
export const TAXONOMY_ICONS = ['task', 'bug', 'story', 'improvement', 'research', 'design', 'support', 'maintenance'] as const
export const STATUS_ACTIONS = ['create', 'update', 'default', 'reorder', 'retire'] as const
export const BOARD_ACTIONS = ['rename', 'archive', 'restore'] as const
export const EDGE_RELATIONS = ['blocks', 'relates_to', 'duplicates', 'parent_of'] as const

/** Our own bounds where the contract gives none (documented in README.md). */
export const LIMITS = {
  filterIds: 100,
  statusesPerBoard: 100,
  choicesPerKind: 1000,
} as const

export const uuid = { type: 'string', format: 'uuid' } as const
export const nuuid = { type: 'string', format: 'uuid', nullable: true } as const
export const revision = { type: 'integer', minimum: 1 } as const
export const catalogueRevision = { type: 'string', minLength: 64, maxLength: 64 } as const
export const userRef = { type: 'integer', exclusiveMinimum: 0 } as const
export const nuserRef = { type: 'integer', exclusiveMinimum: 0, nullable: true } as const
export const date = { type: 'string', format: 'date' } as const
export const ndate = { type: 'string', format: 'date', nullable: true } as const

export function str(min: number, max: number) {
  return min > 0 ? { type: 'string', minLength: min, maxLength: max } as const : { type: 'string', maxLength: max } as const
}

export function nstr(min: number, max: number) {
  return { ...str(min, max), nullable: true } as const
}

export function oneOf<T extends readonly string[]>(values: T) {
  return { type: 'string', enum: values } as const
}

/** Ajv's nullable does not extend an enum: null has to be listed too. */
export function noneOf<T extends readonly string[]>(values: T) {
  return { type: 'string', enum: [...values, null], nullable: true } as const
}

// One workspace path parameter for every area.
export { WORKSPACE_PARAMS } from '../../resources/schemas.ts'

export const ITEM_PARAMS = {
  type: 'object',
  required: ['workspace_id', 'item_id'],
  properties: { workspace_id: uuid, item_id: uuid },
} as const

export const COMMENT_PARAMS = {
  type: 'object',
  required: ['workspace_id', 'item_id', 'comment_id'],
  properties: { workspace_id: uuid, item_id: uuid, comment_id: uuid },
} as const

export const ID_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: uuid },
} as const
