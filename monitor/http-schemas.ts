// Request schemas of the monitoring routes: the cloud MonitorChange,
// MonitorSubscription and MonitorSourceInput as the contract gives them, the
// desktop check, action and heartbeat bodies, and the query strings.
import { ALL_KINDS, ALL_LOCATIONS } from './kinds.ts'
import { ACTIONS } from './store.ts'
import { SOURCE_KINDS } from './sources.ts'

const uuid = { type: 'string', format: 'uuid' } as const
const orNull = <T extends object>(s: T) => ({ ...s, nullable: true }) as const

export const MONITOR_CHANGE = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: orNull(uuid),
    name: orNull({ type: 'string', minLength: 1, maxLength: 100 }),
    kind: orNull({ type: 'string', enum: [...ALL_KINDS, null] }),
    location: orNull({ type: 'string', enum: [...ALL_LOCATIONS, null] }),
    configuration: orNull({ type: 'object' }),
    source_id: orNull(uuid),
    credential: orNull({ type: 'object' }),
    enabled: orNull({ type: 'boolean' }),
    required: orNull({ type: 'boolean' }),
    maintenance_until: orNull({ type: 'string', format: 'date-time' }),
  },
} as const

export const MONITOR_SUBSCRIPTION = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: {
    action: { type: 'string', enum: ['defaults', 'save', 'unsubscribe'] },
    channels: {
      type: 'object',
      maxProperties: 20,
      propertyNames: { minLength: 1, maxLength: 40 },
      additionalProperties: { type: 'string', enum: ['on', 'off'] },
    },
  },
} as const

export const MONITOR_SOURCE = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: {
    action: { type: 'string', enum: ['enroll', 'revoke'] },
    name: { type: 'string', maxLength: 100, default: '' },
    kind: { type: 'string', enum: SOURCE_KINDS, default: 'collector' },
    source_id: orNull(uuid),
  },
} as const

export const MONITORING_VIEWS = ['status', 'history', 'incidents', 'deliveries'] as const

export const MONITORING_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    view: { type: 'string', enum: MONITORING_VIEWS, default: 'status' },
    cursor: { type: 'string', maxLength: 4096 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
  },
} as const

export const DESKTOP_MONITORING_QUERY = {
  type: 'object',
  additionalProperties: false,
  required: ['resource_id'],
  properties: { resource_id: uuid, workspace_id: uuid },
} as const

export const DESKTOP_CHECK = {
  type: 'object',
  additionalProperties: false,
  required: ['resource_id', 'name', 'config'],
  properties: {
    resource_id: uuid,
    name: { type: 'string', minLength: 1, maxLength: 100 },
    required: { type: 'boolean', default: true },
    config: { type: 'object', required: ['kind'], properties: { kind: { type: 'string', enum: ALL_KINDS } } },
    id: uuid,
    revision: { type: 'integer', minimum: 1 },
  },
  dependencies: { id: ['revision'], revision: ['id'] },
} as const

export const DESKTOP_ACTION = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'revision', 'action'],
  properties: {
    id: uuid,
    revision: { type: 'integer', minimum: 1 },
    action: { type: 'string', enum: ACTIONS },
    minutes: { type: 'integer', minimum: 1, maximum: 43_200 },
  },
} as const

export const HEARTBEAT = {
  type: 'object',
  additionalProperties: false,
  required: ['resource_id', 'check_id'],
  properties: { resource_id: uuid, check_id: uuid },
} as const
