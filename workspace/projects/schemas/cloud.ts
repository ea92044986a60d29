// Request schemas of the cloud project routes, field for field from the
// contract's tables. Every body rejects unknown properties.
import {
  BOARD_ACTIONS, LIMITS, NOTE_COLORS, PRIORITIES, STATUS_ACTIONS, STATUS_CATEGORIES, STATUS_COLORS, TASK_KINDS, TICKET_CATEGORIES,
  TAXONOMY_ICONS, TAXONOMY_KINDS, TAXONOMY_OPERATIONS, VISIBILITIES,
  catalogueRevision, date, ndate, noneOf, nstr, nuserRef, nuuid, oneOf, revision, str, uuid,
} from './fields.ts'
import { ACTIONS } from '../state-model.ts'

const ids = { type: 'array', items: uuid, maxItems: LIMITS.filterIds } as const

/** The filter set of every list and get route of the project area. */
export const FILTER_PROPERTIES = {
  board_id: uuid,
  cursor: { type: 'string', maxLength: 4096 },
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
  q: { type: 'string', maxLength: 160 },
  state: { type: 'string' },
  status_id: uuid,
  type_ids: ids,
  label_ids: ids,
  archived: { type: 'boolean', default: false },
  deleted: { type: 'boolean', default: false },
  assignee_id: { type: 'integer', exclusiveMinimum: 0 },
  unassigned: { type: 'boolean', default: false },
  priority: oneOf(PRIORITIES),
  due_before: date,
  due_after: date,
  kind: oneOf(TASK_KINDS),
  deliverable_id: uuid,
} as const

export const FILTER_QUERY = { type: 'object', additionalProperties: false, properties: FILTER_PROPERTIES } as const

export const BOARD_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'name'],
  properties: { board_id: nuuid, idempotency_key: uuid, name: str(1, 120) },
} as const

export const BOARD_ACTION = {
  type: 'object',
  additionalProperties: false,
  required: ['revision', 'action'],
  properties: { board_id: nuuid, revision, action: oneOf(BOARD_ACTIONS), name: nstr(1, 120) },
} as const

export const BOARD_CONFIGURE_PROPERTIES = {
  board_id: nuuid,
  revision: catalogueRevision,
  action: oneOf(STATUS_ACTIONS),
  status_id: nuuid,
  name: nstr(1, 60),
  category: noneOf(STATUS_CATEGORIES),
  color: noneOf(STATUS_COLORS),
  status_ids: { type: 'array', items: uuid, maxItems: LIMITS.statusesPerBoard, nullable: true },
  replacement_id: nuuid,
} as const

export const BOARD_CONFIGURE = {
  type: 'object',
  additionalProperties: false,
  required: ['revision', 'action'],
  properties: BOARD_CONFIGURE_PROPERTIES,
} as const

export const TAXONOMY_CONFIGURE_PROPERTIES = {
  board_id: nuuid,
  revision: catalogueRevision,
  kind: oneOf(TAXONOMY_KINDS),
  operation: oneOf(TAXONOMY_OPERATIONS),
  id: nuuid,
  name: nstr(1, 60),
  icon: noneOf(TAXONOMY_ICONS),
  order: { type: 'array', items: uuid, maxItems: LIMITS.choicesPerKind, nullable: true },
} as const

export const TAXONOMY_CONFIGURE = {
  type: 'object',
  additionalProperties: false,
  required: ['revision', 'kind', 'operation'],
  properties: TAXONOMY_CONFIGURE_PROPERTIES,
} as const

const TASK_REFS = {
  board_id: nuuid,
  type_id: nuuid,
  label_ids: { type: 'array', items: uuid, maxItems: 100, nullable: true },
  status_id: nuuid,
  service: nuuid,
  deliverable: nuuid,
  source_ticket: nuuid,
  assignee: nuserRef,
  reviewer: nuserRef,
  starts_on: ndate,
  due_on: ndate,
} as const

export const TASK_CREATE_PROPERTIES = {
  ...TASK_REFS,
  idempotency_key: uuid,
  title: str(1, 160),
  description: { ...str(0, 6000), default: '' },
  acceptance: { ...str(0, 4000), default: '' },
  priority: { ...oneOf(PRIORITIES), default: 'normal' },
} as const

export const TASK_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'title'],
  properties: TASK_CREATE_PROPERTIES,
} as const

export const TASK_UPDATE_PROPERTIES = {
  ...TASK_REFS,
  revision,
  title: nstr(1, 160),
  description: nstr(0, 6000),
  acceptance: nstr(0, 4000),
  priority: noneOf(PRIORITIES),
} as const

export const TASK_UPDATE = {
  type: 'object',
  additionalProperties: false,
  required: ['revision'],
  properties: TASK_UPDATE_PROPERTIES,
} as const

export const TASK_MOVE = {
  type: 'object',
  additionalProperties: false,
  required: ['revision', 'target_board_id', 'target_status_id'],
  properties: { board_id: nuuid, revision, target_board_id: uuid, target_status_id: uuid },
} as const

export const ACTION_PROPERTIES = {
  board_id: nuuid,
  status_id: nuuid,
  revision,
  action: oneOf(ACTIONS),
  state: nstr(0, 20),
  body: { ...str(0, 3000), default: '' },
  blocked_reason: { ...str(0, 500), default: '' },
  assignee: nuserRef,
  priority: noneOf(PRIORITIES),
} as const

export const ACTION = {
  type: 'object',
  additionalProperties: false,
  required: ['revision', 'action'],
  properties: ACTION_PROPERTIES,
} as const

export const REVISION_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['revision'],
  properties: { board_id: nuuid, revision },
} as const

export const COMMENT_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'body'],
  properties: { board_id: nuuid, idempotency_key: uuid, body: str(1, 4000), visibility: noneOf(VISIBILITIES) },
} as const

export const COMMENT_UPDATE = {
  type: 'object',
  additionalProperties: false,
  required: ['revision', 'body'],
  properties: { board_id: nuuid, revision, body: str(1, 4000) },
} as const

export const DELIVERABLE_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'title'],
  properties: {
    board_id: nuuid,
    idempotency_key: uuid,
    title: str(1, 160),
    description: { ...str(0, 6000), default: '' },
    acceptance: { ...str(0, 4000), default: '' },
    owner: nuserRef,
    starts_on: ndate,
    due_on: ndate,
  },
} as const

export const DELIVERABLE_UPDATE = {
  type: 'object',
  additionalProperties: false,
  required: ['revision'],
  properties: {
    board_id: nuuid,
    revision,
    title: nstr(1, 160),
    description: nstr(0, 6000),
    acceptance: nstr(0, 4000),
    owner: nuserRef,
    starts_on: ndate,
    due_on: ndate,
  },
} as const

export const NOTE_CREATE_PROPERTIES = {
  board_id: nuuid,
  idempotency_key: uuid,
  title: { ...str(0, 120), default: '' },
  body: str(1, 5000),
  color: { ...oneOf(NOTE_COLORS), default: 'yellow' },
  visibility: noneOf(VISIBILITIES),
} as const

export const NOTE_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'body'],
  properties: NOTE_CREATE_PROPERTIES,
} as const

export const NOTE_UPDATE_PROPERTIES = {
  board_id: nuuid,
  revision,
  title: nstr(0, 120),
  body: nstr(1, 5000),
  color: noneOf(NOTE_COLORS),
  visibility: noneOf(VISIBILITIES),
} as const

export const NOTE_UPDATE = {
  type: 'object',
  additionalProperties: false,
  required: ['revision'],
  properties: NOTE_UPDATE_PROPERTIES,
} as const

// The contract gives TicketCreate and Reply but shows no route for them: these are Lookout's (README).
export const TICKET_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'subject', 'body'],
  properties: {
    board_id: nuuid,
    idempotency_key: uuid,
    subject: str(1, 160),
    body: str(1, 20000),
    category: { ...oneOf(TICKET_CATEGORIES), default: 'general' },
    resource: nuuid,
    service: nuuid,
  },
} as const

export const REPLY = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'body'],
  properties: { board_id: nuuid, idempotency_key: uuid, body: str(1, 20000), visibility: noneOf(VISIBILITIES) },
} as const
