// Ajv errors → the cloud contract's 422 items {loc, msg, type, input?, ctx?},
// named the way the published schemas' validator names them.
import type { Issue } from './issues.ts'

export interface DetailItem {
  loc: (string | number)[]
  msg: string
  type: string
  input?: unknown
  ctx?: Record<string, unknown>
}

type Where = 'body' | 'query' | 'path' | 'header'

const WHERE: Record<string, Where> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' }

export function whereOf(context: string | undefined): Where {
  return WHERE[context ?? 'body'] ?? 'body'
}

function pathOf(instancePath: string): (string | number)[] {
  if (instancePath === '') return []
  return instancePath.slice(1).split('/').map((p) => {
    const s = p.replaceAll('~1', '/').replaceAll('~0', '~')
    return /^\d+$/.test(s) ? Number(s) : s
  })
}

const TYPE_NAMES: Record<string, string> = {
  string: 'string_type', integer: 'int_type', number: 'float_type', boolean: 'bool_type',
  object: 'dict_type', array: 'list_type', null: 'none_required',
}

export function toDetail(e: Issue, where: Where): DetailItem {
  const loc: (string | number)[] = [where, ...pathOf(e.instancePath)]
  const p = e.params as Record<string, unknown>
  const input = e.data
  const item = (type: string, msg: string, ctx?: Record<string, unknown>, withInput = true): DetailItem => {
    const d: DetailItem = { loc, msg, type }
    if (withInput && input !== undefined) d.input = input
    if (ctx !== undefined) d.ctx = ctx
    return d
  }
  switch (e.keyword) {
    case 'required':
      loc.push(String(p.missingProperty))
      return item('missing', 'Field required', undefined, false)
    case 'additionalProperties':
      loc.push(String(p.additionalProperty))
      return item('extra_forbidden', 'Extra inputs are not permitted', undefined, false)
    case 'maxLength':
      return item('string_too_long', `String should have at most ${p.limit} characters`, { max_length: p.limit })
    case 'minLength':
      return item('string_too_short', `String should have at least ${p.limit} character${p.limit === 1 ? '' : 's'}`, { min_length: p.limit })
    case 'maxItems':
    case 'maxProperties':
      return item('too_long', `${e.keyword === 'maxItems' ? 'List' : 'Object'} should have at most ${p.limit} items`, { max_length: p.limit }, false)
    case 'minItems':
    case 'minProperties':
      return item('too_short', `${e.keyword === 'minItems' ? 'List' : 'Object'} should have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`, { min_length: p.limit }, false)
    case 'enum': {
      const values = (p.allowedValues as unknown[]).filter((v) => v !== null)
      return item('enum', `Input should be ${values.map((v) => `'${String(v)}'`).join(', ')}`, { expected: values.map(String).join(', ') })
    }
    case 'type': {
      const t = String(p.type).split(',').find((x) => x !== 'null') ?? 'string'
      return item(TYPE_NAMES[t] ?? 'type_error', `Input should be a valid ${t === 'integer' ? 'integer' : t}`)
    }
    case 'format':
      if (p.format === 'uuid') return item('uuid_parsing', 'Input should be a valid UUID')
      if (p.format === 'date') return item('date_parsing', 'Input should be a valid date in the format YYYY-MM-DD')
      if (p.format === 'date-time') return item('datetime_parsing', 'Input should be a valid datetime (ISO 8601)')
      return item('value_error', `Input should match format ${String(p.format)}`)
    case 'pattern':
      return item('string_pattern_mismatch', `String should match pattern '${String(p.pattern)}'`, { pattern: p.pattern })
    case 'minimum':
      return item('greater_than_equal', `Input should be greater than or equal to ${p.limit}`, { ge: p.limit })
    case 'exclusiveMinimum':
      return item('greater_than', `Input should be greater than ${p.limit}`, { gt: p.limit })
    case 'maximum':
      return item('less_than_equal', `Input should be less than or equal to ${p.limit}`, { le: p.limit })
    case 'exclusiveMaximum':
      return item('less_than', `Input should be less than ${p.limit}`, { lt: p.limit })
    case 'json':
      return item('json_invalid', `JSON decode error: ${e.message ?? ''}`, undefined, false)
    default:
      return item('value_error', e.message ?? 'Invalid value')
  }
}

/** Ajv reports a nullable enum or a oneOf twice; keep one item per location and type. */
export function toDetails(errors: readonly Issue[], where: Where): DetailItem[] {
  const seen = new Set<string>()
  const out: DetailItem[] = []
  for (const e of errors) {
    if (e.keyword === 'if' || e.keyword === 'anyOf' || e.keyword === 'oneOf') continue
    const d = toDetail(e, where)
    const key = JSON.stringify(d.loc) + d.type
    if (seen.has(key)) continue
    seen.add(key)
    out.push(d)
  }
  return out
}

/** A single problem found by code rather than by the schema. */
export function detail(loc: (string | number)[], msg: string, type = 'value_error', input?: unknown): DetailItem {
  const d: DetailItem = { loc, msg, type }
  if (input !== undefined) d.input = input
  return d
}
