// ResourceCreate / ResourceUpdate and the list query, as the contract's tables give them.

export const RESOURCE_KINDS = ['website', 'server', 'database', 'api', 'repository', 'domain', 'storage', 'other'] as const
export const RESOURCE_STATUSES = ['planned', 'active', 'retired'] as const
export const STICKERS = ['auto', ...RESOURCE_KINDS] as const
export const EXTERNAL_ID_PATTERN = '^[A-Za-z0-9._:/@+-]+$'

const nullable = <T extends object>(s: T) => ({ ...s, nullable: true }) as const

const FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: 160 },
  kind: { type: 'string', enum: RESOURCE_KINDS },
  status: { type: 'string', enum: RESOURCE_STATUSES },
  provider: { type: 'string', maxLength: 120 },
  environment: { type: 'string', maxLength: 80 },
  description: { type: 'string', maxLength: 12000 },
  public_url: { type: 'string', maxLength: 200 },
  details: {
    type: 'object',
    maxProperties: 30,
    propertyNames: { minLength: 1, maxLength: 120 },
    additionalProperties: { type: 'string', maxLength: 2000 },
  },
  sticker: { type: 'string', enum: STICKERS },
  tags: { type: 'array', maxItems: 12, items: { type: 'string', minLength: 1, maxLength: 40 } },
} as const

export const RESOURCE_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['external_id', 'name'],
  properties: {
    external_id: { type: 'string', minLength: 1, maxLength: 200, pattern: EXTERNAL_ID_PATTERN },
    ...FIELDS,
  },
} as const

function orNull<T extends Record<string, object>>(fields: T): { [K in keyof T]: T[K] & { nullable: true } } {
  const out: Record<string, object> = {}
  for (const [k, v] of Object.entries(fields)) {
    // Ajv's nullable does not extend an enum: null has to be listed.
    const e = (v as { enum?: readonly unknown[] }).enum
    out[k] = e === undefined ? nullable(v) : nullable({ ...v, enum: [...e, null] })
  }
  return out as { [K in keyof T]: T[K] & { nullable: true } }
}

export const RESOURCE_UPDATE = {
  type: 'object',
  additionalProperties: false,
  properties: orNull(FIELDS),
} as const

export const RESOURCE_LIST_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: { type: 'string', maxLength: 4096 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    external_id: { type: 'string', minLength: 1, maxLength: 200, pattern: EXTERNAL_ID_PATTERN },
  },
} as const

export const WORKSPACE_PARAMS = {
  type: 'object',
  required: ['workspace_id'],
  properties: { workspace_id: { type: 'string', format: 'uuid' } },
} as const

export const RESOURCE_PARAMS = {
  type: 'object',
  required: ['workspace_id', 'resource_id'],
  properties: {
    workspace_id: { type: 'string', format: 'uuid' },
    resource_id: { type: 'string', format: 'uuid' },
  },
} as const

export const RESOURCE_SERVICE_PARAMS = {
  type: 'object',
  required: ['workspace_id', 'resource_id', 'service_id'],
  properties: {
    workspace_id: { type: 'string', format: 'uuid' },
    resource_id: { type: 'string', format: 'uuid' },
    service_id: { type: 'string', format: 'uuid' },
  },
} as const
