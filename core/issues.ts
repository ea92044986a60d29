// Validation problems found in a worker, in Ajv's error shape so the API maps
// them to the contract's error bodies with the same code as its own schemas.
import type { ErrorObject } from 'ajv'

export type Issue = Pick<ErrorObject, 'instancePath' | 'keyword' | 'params' | 'message'> & { data?: unknown }

export function issue(instancePath: string, keyword: string, message: string, params: Record<string, unknown> = {}, data?: unknown): Issue {
  return { instancePath, keyword, message, params, data }
}

/** Keeps only what survives a thread hop and is safe to echo back. */
export function toIssues(errors: readonly ErrorObject[]): Issue[] {
  return errors.map((e) => ({
    instancePath: e.instancePath,
    keyword: e.keyword,
    message: e.message,
    params: e.params,
    data: clip(e.data),
  }))
}

function clip(v: unknown): unknown {
  if (typeof v === 'string') return v.length > 200 ? v.slice(0, 200) + '…' : v
  if (v === null || typeof v !== 'object') return v
  return undefined // objects and arrays are not echoed: they can be large
}
