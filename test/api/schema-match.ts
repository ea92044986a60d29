// Compares a JSON Schema from the served OpenAPI 3.1 document with a field of
// the contract in the notation of contract-fields.ts; returns the differences.
import { SCHEMAS, type FieldSpec } from './contract-fields.ts'

export type JsonSchema = Record<string, any>

interface Parsed {
  base: string
  array: boolean
  nullable: boolean
  required: boolean | null
  min?: number
  max?: number
  eachMin?: number
  eachMax?: number
  enum?: string[]
  pattern: boolean
}

export function parseField(spec: FieldSpec): Parsed {
  const tokens = spec.trim().split(/\s+/)
  const head = tokens.shift() as string
  const m = /^([A-Za-z-]+)(\[\])?([?!~]*)$/.exec(head)
  if (m === null) throw new Error(`bad field spec ${spec}`)
  const flags = m[3] ?? ''
  const p: Parsed = {
    base: m[1] as string, array: m[2] === '[]', nullable: flags.includes('?'),
    required: flags.includes('!') ? true : flags.includes('~') ? null : false, pattern: false,
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string
    let r: RegExpExecArray | null
    if ((r = /^(\d+)\.\.(\d+)$/.exec(t)) !== null) {
      p.min = Number(r[1])
      p.max = Number(r[2])
    } else if (t === 'max') {
      p.max = Number(tokens[++i])
      if (p.base === 'str' && !p.array) p.min = 0
    } else if (t === 'each') {
      const e = /^(\d+)\.\.(\d+)$/.exec(tokens[++i] ?? '')
      if (e === null) throw new Error(`bad each in ${spec}`)
      p.eachMin = Number(e[1])
      p.eachMax = Number(e[2])
    } else if ((r = /^>(\d+)$/.exec(t)) !== null) p.min = Number(r[1]) + 1
    else if ((r = /^>=(\d+)$/.exec(t)) !== null) p.min = Number(r[1])
    else if ((r = /^<=(\d+)$/.exec(t)) !== null) p.max = Number(r[1])
    else if ((r = /^\{(.*)\}$/.exec(t)) !== null) p.enum = (r[1] as string).split(',')
    else if (t === 'pattern') p.pattern = true
    else throw new Error(`bad token ${t} in ${spec}`)
  }
  return p
}

function types(s: JsonSchema): string[] {
  const t = s.type
  return Array.isArray(t) ? t : t === undefined ? [] : [t]
}

function acceptsNull(s: JsonSchema): boolean {
  if (types(s).includes('null')) return true
  if (Array.isArray(s.enum) && s.enum.includes(null)) return true
  for (const k of ['anyOf', 'oneOf']) if (Array.isArray(s[k]) && s[k].some((x: JsonSchema) => acceptsNull(x))) return true
  return false
}

/** Integer bounds normalized: exclusiveMinimum 0 is minimum 1. */
function intBounds(s: JsonSchema): { min?: number; max?: number } {
  const min = s.minimum ?? (typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : undefined)
  const max = s.maximum ?? (typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - 1 : undefined)
  return { min, max }
}

const FORMATS: Record<string, string> = { uuid: 'uuid', date: 'date', datetime: 'date-time' }
const JSON_TYPES: Record<string, string> = { uuid: 'string', str: 'string', date: 'string', datetime: 'string', int: 'integer', bool: 'boolean', obj: 'object' }

function checkScalar(where: string, base: string, s: JsonSchema, out: string[]): void {
  if (base === 'any') return
  if (SCHEMAS[base] !== undefined) {
    out.push(...compareObject(`${where}`, base, s))
    return
  }
  const want = JSON_TYPES[base]
  if (want === undefined) throw new Error(`unknown base type ${base}`)
  const have = types(s).filter((t) => t !== 'null')
  if (!(have.length === 1 && have[0] === want)) out.push(`${where}: type ${JSON.stringify(s.type)}, the spec says ${want}`)
  const format = FORMATS[base]
  if (format !== undefined && s.format !== format) out.push(`${where}: format ${s.format}, the spec says ${format}`)
}

export function compareField(where: string, spec: FieldSpec, s: JsonSchema | undefined): string[] {
  const out: string[] = []
  if (s === undefined) return [`${where}: missing`]
  const p = parseField(spec)
  if (p.nullable !== acceptsNull(s)) out.push(`${where}: ${p.nullable ? 'must' : 'must not'} accept null`)
  if (p.array) {
    if (!types(s).includes('array')) out.push(`${where}: type ${JSON.stringify(s.type)}, the spec says array`)
    if (p.min !== undefined && (s.minItems ?? 0) !== p.min) out.push(`${where}: minItems ${s.minItems}, the spec says ${p.min}`)
    if (p.max !== undefined && s.maxItems !== p.max) out.push(`${where}: maxItems ${s.maxItems}, the spec says ${p.max}`)
    const items = (s.items ?? {}) as JsonSchema
    checkScalar(`${where}[]`, p.base, items, out)
    if (p.enum !== undefined) compareEnum(`${where}[]`, p.enum, items, out)
    if (p.eachMin !== undefined && ((items.minLength ?? 0) !== p.eachMin || items.maxLength !== p.eachMax)) {
      out.push(`${where}[]: length ${items.minLength}..${items.maxLength}, the spec says ${p.eachMin}..${p.eachMax}`)
    }
    return out
  }
  checkScalar(where, p.base, s, out)
  if (p.enum !== undefined) compareEnum(where, p.enum, s, out)
  if (p.base === 'int') {
    const b = intBounds(s)
    if (p.min !== undefined && b.min !== p.min) out.push(`${where}: lower bound ${b.min}, the spec says ${p.min}`)
    if (p.max !== undefined && b.max !== p.max) out.push(`${where}: upper bound ${b.max}, the spec says ${p.max}`)
  } else if (p.base === 'obj') {
    if (p.max !== undefined && s.maxProperties !== p.max) out.push(`${where}: maxProperties ${s.maxProperties}, the spec says ${p.max}`)
  } else if (p.base === 'str') {
    if (p.min !== undefined && (s.minLength ?? 0) !== p.min) out.push(`${where}: minLength ${s.minLength ?? 0}, the spec says ${p.min}`)
    if (p.max !== undefined && s.maxLength !== p.max) out.push(`${where}: maxLength ${s.maxLength}, the spec says ${p.max}`)
    if (p.pattern && typeof s.pattern !== 'string') out.push(`${where}: no pattern, the spec restricts the characters`)
  }
  return out
}

function compareEnum(where: string, want: string[], s: JsonSchema, out: string[]): void {
  const have = Array.isArray(s.enum) ? s.enum.filter((v: unknown) => v !== null).map(String) : s.const !== undefined ? [String(s.const)] : null
  if (have === null) {
    out.push(`${where}: no enum, the spec says {${want.join(',')}}`)
    return
  }
  const a = [...have].sort().join(',')
  const b = [...want].sort().join(',')
  if (a !== b) out.push(`${where}: enum {${have.join(',')}}, the spec says {${want.join(',')}}`)
}

/** A request body against a named schema: the property set, required set, additionalProperties and each field. */
export function compareObject(where: string, name: string, s: JsonSchema): string[] {
  const spec = SCHEMAS[name]
  if (spec === undefined) throw new Error(`no spec schema ${name}`)
  const out: string[] = []
  if (!types(s).includes('object')) out.push(`${where}: type ${JSON.stringify(s.type)}, the spec says object`)
  if (s.additionalProperties !== false) out.push(`${where}: unknown properties must be rejected (additionalProperties: false)`)
  const props = (s.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set<string>(Array.isArray(s.required) ? s.required : [])
  for (const [field, fspec] of Object.entries(spec.fields)) {
    out.push(...compareField(`${where}.${field}`, fspec, props[field]))
    const req = parseField(fspec).required
    if (req !== null && req !== required.has(field)) out.push(`${where}.${field}: ${req ? 'must be required' : 'must be optional'}`)
  }
  for (const field of Object.keys(props)) {
    if (!(field in spec.fields) && !(field in (spec.extensions ?? {}))) out.push(`${where}.${field}: not in the spec's ${name}`)
  }
  return out
}
