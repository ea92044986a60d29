// Route schemas use Ajv's OpenAPI-style `nullable`; tool clients expect plain
// JSON Schema, where null is a type of its own.
type Schema = Record<string, unknown>

const MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions'])
const ONE = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'])
const MANY = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems'])

export function toJsonSchema(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema
  const src = schema as Schema
  const out: Schema = {}
  for (const [k, v] of Object.entries(src)) {
    if (k === 'nullable') continue
    if (MAPS.has(k) && v !== null && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v as Schema).map(([name, s]) => [name, toJsonSchema(s)]))
    } else if (ONE.has(k)) out[k] = toJsonSchema(v)
    else if (MANY.has(k) && Array.isArray(v)) out[k] = v.map(toJsonSchema)
    else out[k] = v
  }
  if (src.nullable === true && typeof src.type === 'string') out.type = [src.type, 'null']
  return out
}
