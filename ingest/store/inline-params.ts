// A statement's bound parameters written into its text, for the embedded
// engine's second connection (chdb-store.ts, queryBeside): chdb's binding runs
// every statement that has bound parameters through one chain per process, so
// only a statement without them can run beside another. Each value enters the
// text as hex digits (`unhex('…')`) cast to the type its placeholder names, so
// no value, whatever its characters, can end a literal or change the statement.
import type { QueryParams } from './store-port.ts'

/** `{name:Type}`, as the statements of the query stage write their placeholders. */
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):([A-Za-z0-9_(), ]+)\}/g

function hexText(value: unknown): string {
  if (typeof value === 'string') return Buffer.from(value, 'utf8').toString('hex')
  if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`a number parameter must be finite, got ${value}`)
    return Buffer.from(String(value), 'latin1').toString('hex')
  }
  throw new Error(`a parameter value must be a string, number or bigint, got ${value === null ? 'null' : typeof value}`)
}

/** The value as a constant of `type`: hex-encoded text (or an array of it), cast. */
function literal(name: string, value: unknown, type: string): string {
  if (type.startsWith('Array(')) {
    if (!Array.isArray(value)) throw new Error(`parameter ${name} is declared ${type} but is not an array`)
    const items = value.map((v) => `unhex('${hexText(v)}')`).join(', ')
    return `CAST([${items}], '${type}')`
  }
  if (Array.isArray(value)) throw new Error(`parameter ${name} is declared ${type} but is an array`)
  return `CAST(unhex('${hexText(value)}'), '${type}')`
}

/** `sql` with each `{name:Type}` replaced by its value from `params`; a placeholder without a value is an error. */
export function inlineParams(sql: string, params: QueryParams | undefined): string {
  return sql.replace(PLACEHOLDER, (_, name: string, type: string) => {
    if (params === undefined || !Object.hasOwn(params, name)) throw new Error(`no value for parameter ${name}`)
    return literal(name, params[name], type)
  })
}
