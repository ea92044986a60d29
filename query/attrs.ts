// Attribute filters of the log routes: `attr.<key>=<value>` (a log record
// attribute) and `resource.<key>=<value>` (a resource attribute), exact text
// matches, repeatable and ANDed; `-attr.<key>=<value>` or `attr.<key>!=<value>`
// excludes. Parsed from a route's query object, so any route (the search, the
// facets, a monitoring check counting log lines) takes the same syntax.
import type { ParamProblem } from './problems.ts'

export interface AttrMatch {
  /** 'attr': the record's attributes; 'resource': its resource attributes. */
  scope: 'attr' | 'resource'
  key: string
  value: string
  /** true: lines whose value is this one are excluded (lines without the key are kept). */
  negate: boolean
}

/** At most this many attribute filters in one query. */
export const MAX_ATTR_FILTERS = 20
/** Longest key, characters. */
export const MAX_ATTR_KEY = 256
/** Longest value, characters (as a `q`). */
export const MAX_ATTR_VALUE = 500

/** A query-string name that is an attribute filter: `[-](attr|resource).<key>[!]`. */
export const ATTR_PARAM_RE = /^(-?)(attr|resource)\.(.+?)(!?)$/s
/** The same as a JSON-schema patternProperties key (the routes' schemas accept these names). */
export const ATTR_PARAM_PATTERN = '^-?(attr|resource)\\.'

/** The attribute filters in words, for the OpenAPI descriptions of the routes that take them. */
export const ATTR_FILTERS_DOC = 'Attribute filters (Lookout extension, repeatable, all ANDed): attr.<key>=<value> (a log record attribute) and ' +
  'resource.<key>=<value> (a resource attribute) match the value exactly as text; -attr.<key>=<value> or attr.<key>!=<value> excludes it ' +
  '(lines without the key are kept). At most 20; keys up to 256 and values 1..500 characters.'

/** The JSON schema of one attribute-filter parameter: one value or several (repeated), each 1..500 characters. */
export const ATTR_PARAM_SCHEMA = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: MAX_ATTR_VALUE },
  maxItems: MAX_ATTR_FILTERS,
  description: 'attr.<key>=<value> or resource.<key>=<value>: exact match on the attribute\'s text (repeatable, ANDed); -attr.<key>=<value> or attr.<key>!=<value> excludes',
} as const

export interface AttrOutcome {
  matches: AttrMatch[]
  problems: ParamProblem[]
}

/**
 * The attribute filters among a route's query parameters (other names are
 * ignored: the route's schema judges them). Values arrive as a string or, for
 * a repeated parameter, an array.
 */
export function parseAttrFilters(query: Readonly<Record<string, unknown>>): AttrOutcome {
  const matches: AttrMatch[] = []
  const problems: ParamProblem[] = []
  for (const [name, raw] of Object.entries(query)) {
    const m = ATTR_PARAM_RE.exec(name)
    if (m === null) continue
    const [, minus, scope, key, bang] = m as unknown as [string, string, 'attr' | 'resource', string, string]
    if (minus !== '' && bang !== '') {
      problems.push({ param: name, msg: `use either -${scope}.<key>=<value> or ${scope}.<key>!=<value> to exclude a value, not both`, type: 'value_error', input: raw })
      continue
    }
    if (key.length > MAX_ATTR_KEY) {
      problems.push({ param: name, msg: `the attribute name may be at most ${MAX_ATTR_KEY} characters`, type: 'string_too_long', input: key })
      continue
    }
    const values = Array.isArray(raw) ? raw : [raw]
    for (const value of values) {
      if (typeof value !== 'string' || value === '') {
        problems.push({ param: name, msg: `give the value to match, as in ${scope}.${key}=<value>`, type: 'value_error', input: value })
        continue
      }
      matches.push({ scope, key, value, negate: minus !== '' || bang !== '' })
    }
  }
  if (matches.length > MAX_ATTR_FILTERS) {
    problems.push({ param: 'attr', msg: `at most ${MAX_ATTR_FILTERS} attribute filters in one query`, type: 'too_long', input: matches.length })
  }
  return { matches, problems }
}

/** An attribute filter in its query-string form (`-resource.host.name=web-3`): the name and the value. */
export function attrParam(m: AttrMatch): [string, string] {
  return [`${m.negate ? '-' : ''}${m.scope}.${m.key}`, m.value]
}

/** The live tail's evaluation of attribute filters on one event (sql.ts's attrCondition's twin: a missing key reads as ''). */
export function matchesAttrs(attrs: readonly AttrMatch[], attributes: Record<string, string>, resource: Record<string, string>): boolean {
  for (const a of attrs) {
    const map = a.scope === 'attr' ? attributes : resource
    // Own keys only: a key named like an Object.prototype member is still just a key.
    const v = Object.hasOwn(map, a.key) ? map[a.key] : ''
    if ((v === a.value) === a.negate) return false
  }
  return true
}
