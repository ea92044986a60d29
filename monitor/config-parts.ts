// The building blocks of the kinds' configuration schemas, and the problem shape
// their checks report (Ajv's error shape, so the api edge renders them like its
// own). A leaf: the probe files declaring the kinds use it, config.ts too.
import type { ErrorObject } from 'ajv'
import { DEFAULT_INTERVAL_SECONDS } from './vocabulary.ts'

export type ConfigIssue = Pick<ErrorObject, 'instancePath' | 'keyword' | 'params' | 'message'> & { data?: unknown }

export const LIMITS = { intervalMax: 86_400, timeoutMax: 600 } as const
// A leading '-' would read as a ping option: names start with a letter, digit, '_' or ':'.
export const HOST = { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9_:][A-Za-z0-9._:%-]*$' } as const
export const PORT = { type: 'integer', minimum: 1, maximum: 65535 } as const
export const PEM = { type: 'string', minLength: 1, maxLength: 65536 } as const
/** Reach the target through an SSH tunnel with the resource's registered key (location neura only; host and port as the SSH server sees them). */
export const SSH = { type: 'boolean' } as const
/** Every kind's first keys (config.ts puts them before the kind's own; a passive kind has no timeout). */
export const TIMING = {
  interval_seconds: { type: 'integer', minimum: 1, maximum: LIMITS.intervalMax, default: DEFAULT_INTERVAL_SECONDS },
  timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: LIMITS.timeoutMax },
} as const

export function issue(path: string, message: string, data?: unknown): ConfigIssue {
  return { instancePath: path, keyword: 'value_error', params: {}, message, data }
}

/** A value as a problem may quote it: long strings cut, objects left out. */
export function clip(v: unknown): unknown {
  if (typeof v === 'string') return v.length > 200 ? v.slice(0, 200) + '…' : v
  return v !== null && typeof v === 'object' ? undefined : v
}
