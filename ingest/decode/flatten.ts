// Flattens a free-form JSON attributes object into dotted string keys.
import type { RowFields } from '../rows/rows.ts'

export const MAX_ATTRIBUTE_DEPTH = 32

/**
 * Appends `value` under `key` to the row's attribute arrays. Objects become
 * dotted keys, arrays their JSON text, scalars their string form.
 * Returns false when nesting is deeper than MAX_ATTRIBUTE_DEPTH.
 */
export function flattenInto(f: RowFields, key: string, value: unknown, depth: number): boolean {
  if (depth > MAX_ATTRIBUTE_DEPTH) return false
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const k in value as Record<string, unknown>) {
      if (!flattenInto(f, key === '' ? k : key + '.' + k, (value as Record<string, unknown>)[k], depth + 1)) return false
    }
    return true
  }
  let text: string
  if (typeof value === 'string') text = value
  else if (Array.isArray(value)) {
    if (!shallowerThan(value, MAX_ATTRIBUTE_DEPTH - depth)) return false
    text = JSON.stringify(value)
  } else text = String(value)
  const i = f.attrCount++
  if (i < f.attrKeys.length) {
    f.attrKeys[i] = key
    f.attrValues[i] = text
  } else {
    f.attrKeys.push(key)
    f.attrValues.push(text)
  }
  return true
}

function shallowerThan(value: unknown, depth: number): boolean {
  if (depth < 0) return false
  if (value === null || typeof value !== 'object') return true
  for (const v of Object.values(value as object)) if (!shallowerThan(v, depth - 1)) return false
  return true
}
