// Request schemas of the desktop project routes (/v1/projects/...). Mutations
// carry idempotency_key; edits, actions and deletes also the observed revision.
// workspace_id is optional: it defaults to the credential's workspace.
import {
  BOARD_CONFIGURE_PROPERTIES, FILTER_PROPERTIES, NOTE_CREATE_PROPERTIES, NOTE_UPDATE_PROPERTIES, TASK_CREATE_PROPERTIES,
  TASK_UPDATE_PROPERTIES, TAXONOMY_CONFIGURE_PROPERTIES,
} from './cloud.ts'
import { EDGE_RELATIONS, LIMITS, oneOf, revision, str, uuid } from './fields.ts'

export const ITEM_TYPES = ['task', 'note'] as const

const UUID_RE = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'
/** Comma-separated uuids (the desktop listing's type_ids and label_ids). */
const csvIds = { type: 'string', maxLength: LIMITS.filterIds * 37 - 1, pattern: `^(${UUID_RE}(,${UUID_RE})*)?$` } as const

const WS = { workspace_id: uuid } as const
const page = { cursor: FILTER_PROPERTIES.cursor, limit: FILTER_PROPERTIES.limit } as const

export const ITEM_LIST_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { ...WS, ...FILTER_PROPERTIES, type_ids: csvIds, label_ids: csvIds, item_type: oneOf(ITEM_TYPES) },
} as const

export const WS_QUERY = { type: 'object', additionalProperties: false, properties: WS } as const
export const HISTORY_QUERY = { type: 'object', additionalProperties: false, properties: { ...WS, ...page } } as const
export const BOARDS_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { ...WS, ...page, q: FILTER_PROPERTIES.q, archived: FILTER_PROPERTIES.archived },
} as const
export const STATUSES_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { ...WS, board_id: uuid, archived: FILTER_PROPERTIES.archived },
} as const
export const TAXONOMY_QUERY = { type: 'object', additionalProperties: false, properties: { ...WS, archived: FILTER_PROPERTIES.archived } } as const
export const EDGES_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { ...WS, ...page, item_id: uuid, deleted: FILTER_PROPERTIES.deleted },
} as const

const desktopCreate = (props: object, required: readonly string[]) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties: { ...props, ...WS, item_type: oneOf(ITEM_TYPES) },
}) as const

/** One body, two shapes: a note (item_type "note") or a task (the default). */
export const ITEM_CREATE = {
  type: 'object',
  required: ['idempotency_key'],
  properties: { item_type: oneOf(ITEM_TYPES) },
  if: { type: 'object', required: ['item_type'], properties: { item_type: { const: 'note' } } },
  then: desktopCreate(NOTE_CREATE_PROPERTIES, ['idempotency_key', 'body']),
  else: desktopCreate(TASK_CREATE_PROPERTIES, ['idempotency_key', 'title']),
} as const

/** The route only checks the envelope; the item's own schema (task or note) is applied once its type is known. */
export const ITEM_PATCH_ENVELOPE = {
  type: 'object',
  required: ['idempotency_key', 'revision'],
  properties: { ...WS, idempotency_key: uuid, revision },
} as const

export const TASK_PATCH = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'revision'],
  properties: { ...TASK_UPDATE_PROPERTIES, ...WS, idempotency_key: uuid },
} as const

export const NOTE_PATCH = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'revision'],
  properties: { ...NOTE_UPDATE_PROPERTIES, ...WS, idempotency_key: uuid },
} as const

export const DESKTOP_ACTIONS = ['archive', 'trash', 'restore', 'approval'] as const
export const APPROVAL_DECISIONS = ['approve', 'changes'] as const

export const ITEM_ACTION = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'revision', 'action'],
  properties: {
    ...WS,
    idempotency_key: uuid,
    revision,
    action: oneOf(DESKTOP_ACTIONS),
    decision: oneOf(APPROVAL_DECISIONS),
    body: str(0, 3000),
  },
} as const

export const REVISION_MUTATION = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'revision'],
  properties: { ...WS, idempotency_key: uuid, revision },
} as const

export const STATUS_CONFIGURE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'revision', 'action'],
  properties: { ...BOARD_CONFIGURE_PROPERTIES, ...WS, idempotency_key: uuid },
} as const

export const TAXONOMY_WRITE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'revision', 'kind', 'operation'],
  properties: { ...TAXONOMY_CONFIGURE_PROPERTIES, ...WS, idempotency_key: uuid },
} as const

export const EDGE_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'from_id', 'to_id', 'relation'],
  properties: { ...WS, idempotency_key: uuid, from_id: uuid, to_id: uuid, relation: oneOf(EDGE_RELATIONS) },
} as const
