// ServiceCreate / ServiceUpdate / TimeCreate / TimeCorrect / TimeVoid and the
// list queries, as the contract's tables give them.

export const SERVICE_KINDS = ['website', 'ai', 'automation', 'pipeline', 'cloud', 'retainer', 'consulting', 'development', 'support', 'other'] as const
export const LIFECYCLES = ['planned', 'active', 'paused', 'ended'] as const
export const MODULES = ['operations', 'capacity', 'support'] as const
export const TIME_STATES = ['draft', 'posted'] as const
export const MAX_MINUTES = 6_000_000

const uuid = { type: 'string', format: 'uuid' } as const
const nullableEnum = (values: readonly string[]) => ({ type: 'string', enum: [...values, null], nullable: true }) as const
const positiveInt = { type: 'integer', exclusiveMinimum: 0 } as const

const SERVICE_FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: 160 },
  kind: { type: 'string', enum: SERVICE_KINDS },
  lifecycle: nullableEnum(LIFECYCLES),
  owner_id: { ...positiveInt, nullable: true },
  modules: { type: 'array', nullable: true, items: { type: 'string', enum: MODULES } },
  description: { type: 'string', maxLength: 12000 },
  public_url: { type: 'string', maxLength: 200 },
  active: { type: 'boolean', nullable: true },
} as const

export const SERVICE_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'name'],
  properties: { idempotency_key: uuid, ...SERVICE_FIELDS },
} as const

export const SERVICE_UPDATE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'expected_updated_at'],
  properties: {
    idempotency_key: uuid,
    expected_updated_at: { type: 'string', minLength: 1, maxLength: 50 },
    name: { ...SERVICE_FIELDS.name, nullable: true },
    kind: nullableEnum(SERVICE_KINDS),
    lifecycle: SERVICE_FIELDS.lifecycle,
    owner_id: SERVICE_FIELDS.owner_id,
    modules: SERVICE_FIELDS.modules,
    description: { ...SERVICE_FIELDS.description, nullable: true },
    public_url: { ...SERVICE_FIELDS.public_url, nullable: true },
    active: SERVICE_FIELDS.active,
  },
} as const

const minutes = { type: 'integer', exclusiveMinimum: 0, maximum: MAX_MINUTES } as const

export const TIME_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'occurred_at', 'minutes', 'description'],
  properties: {
    idempotency_key: uuid,
    occurred_at: { type: 'string', minLength: 1, maxLength: 50 },
    minutes,
    description: { type: 'string', minLength: 1, maxLength: 1000 },
    internal_notes: { type: 'string', maxLength: 10000 },
    task_id: { ...uuid, nullable: true },
    staff_id: { ...positiveInt, nullable: true },
    chargeable: { type: 'boolean' },
    state: { type: 'string', enum: TIME_STATES },
  },
} as const

export const TIME_CORRECT = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'revision', 'reason'],
  properties: {
    idempotency_key: uuid,
    revision: { type: 'integer', minimum: 1 },
    reason: { type: 'string', minLength: 1, maxLength: 1000 },
    occurred_at: { type: 'string', maxLength: 50, nullable: true },
    minutes: { ...minutes, nullable: true },
    description: { type: 'string', minLength: 1, maxLength: 1000, nullable: true },
    internal_notes: { type: 'string', maxLength: 10000, nullable: true },
    task_id: { ...uuid, nullable: true },
    staff_id: { ...positiveInt, nullable: true },
    chargeable: { type: 'boolean', nullable: true },
    state: nullableEnum(TIME_STATES),
  },
} as const

export const TIME_VOID = {
  type: 'object',
  additionalProperties: false,
  required: ['idempotency_key', 'revision', 'reason'],
  properties: {
    idempotency_key: uuid,
    revision: { type: 'integer', minimum: 1 },
    reason: { type: 'string', minLength: 1, maxLength: 1000 },
  },
} as const

export const SERVICE_LIST_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', maxLength: 160, default: '' },
    cursor: { type: 'string', maxLength: 4096 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
  },
} as const

export const USAGE_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: { type: 'string', maxLength: 4096 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
  },
} as const

const ws = { type: 'string', format: 'uuid' } as const

export const SERVICE_PARAMS = {
  type: 'object',
  required: ['workspace_id', 'service_id'],
  properties: { workspace_id: ws, service_id: ws },
} as const

export const ENTRY_PARAMS = {
  type: 'object',
  required: ['workspace_id', 'service_id', 'entry_id'],
  properties: { workspace_id: ws, service_id: ws, entry_id: ws },
} as const
