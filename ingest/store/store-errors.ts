// Telling ClickHouse errors about the data (never loadable) from errors about
// the engine or the connection (retry until it comes back).

// Parse, type and size errors: the same bytes will fail the same way again.
// (CANNOT_PARSE_TEXT/QUOTED_STRING/INPUT_ASSERTION/DATE/DATETIME/NUMBER/UUID/IPV4/IPV6/BOOL,
// TYPE_MISMATCH, INCORRECT_DATA, TOO_LARGE_STRING_SIZE, VALUE_IS_OUT_OF_RANGE ...,
// and CANNOT_READ_ALL_DATA: a Native block that ends early)
const DATA_ERROR_CODES = new Set([6, 26, 27, 32, 33, 38, 41, 53, 69, 70, 72, 117, 131, 321, 376, 377, 378, 467, 1001])

export function clickhouseErrorCode(err: unknown): number | null {
  const e = err as { code?: unknown; message?: unknown }
  if (typeof e?.code === 'string' && /^\d+$/.test(e.code)) return Number(e.code)
  if (typeof e?.code === 'number') return e.code
  const m = /Code: (\d+)/.exec(String(e?.message ?? ''))
  return m === null ? null : Number(m[1])
}

export function isDataError(err: unknown): boolean {
  const code = clickhouseErrorCode(err)
  if (code !== null && DATA_ERROR_CODES.has(code)) return true
  // Any other parse failure of the insert body names the row it failed at.
  return /\(at row \d+\)/.test(String((err as { message?: unknown })?.message ?? ''))
}

// TOO_MANY_ROWS: a statement read past its max_rows_to_read (read_overflow_mode = 'throw').
const TOO_MANY_ROWS = 158

/** Whether a statement stopped at its `max_rows_to_read` bound (the search's guarded jump, query/search.ts). */
export function isTooManyRowsError(err: unknown): boolean {
  return clickhouseErrorCode(err) === TOO_MANY_ROWS
}
