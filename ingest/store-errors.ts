// Telling ClickHouse errors about the data (never loadable) from errors about
// the engine or the connection (retry until it comes back).

// Parse, type and size errors: the same bytes will fail the same way again.
const DATA_ERROR_CODES = new Set([6, 26, 27, 32, 38, 41, 53, 69, 70, 72, 117, 131, 321, 1001])

export function clickhouseErrorCode(err: unknown): number | null {
  const e = err as { code?: unknown; message?: unknown }
  if (typeof e?.code === 'string' && /^\d+$/.test(e.code)) return Number(e.code)
  if (typeof e?.code === 'number') return e.code
  const m = /Code: (\d+)/.exec(String(e?.message ?? ''))
  return m === null ? null : Number(m[1])
}

export function isDataError(err: unknown): boolean {
  const code = clickhouseErrorCode(err)
  return code !== null && DATA_ERROR_CODES.has(code)
}
