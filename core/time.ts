// Timestamp parsing that keeps nanosecond precision (Date keeps milliseconds only).

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})?$/

export interface ParsedTime {
  /** Nanoseconds since the epoch. */
  ns: bigint
  /** Whether the text carried a zone (Z or an offset). */
  zoned: boolean
}

/** Parses an RFC 3339 / ISO 8601 date-time; a missing zone means UTC. null when invalid. */
export function parseIsoTime(text: string): ParsedTime | null {
  const m = ISO_RE.exec(text)
  if (m === null) return null
  const [, y, mo, d, h, mi, s, frac, zone] = m
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s))
  if (Number.isNaN(ms)) return null
  // Reject rolled-over dates such as February 30th.
  const check = new Date(ms)
  if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null
  let offsetMin = 0
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)))
  }
  const nanos = frac === undefined ? 0n : BigInt(frac.padEnd(9, '0'))
  const ns = BigInt(ms - offsetMin * 60_000) * 1_000_000n + nanos
  return { ns, zoned: zone !== undefined }
}

export function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n
}

/** Formats nanoseconds since the epoch as RFC 3339 with nine fraction digits, UTC. */
export function formatNs(ns: bigint): string {
  const ms = ns / 1_000_000n
  const iso = new Date(Number(ms)).toISOString() // yyyy-mm-ddThh:mm:ss.mmmZ
  const frac = (ns % 1_000_000_000n).toString().padStart(9, '0')
  return iso.slice(0, 19) + '.' + frac + 'Z'
}

// The last second formatNsText formatted: a page's lines share a few seconds.
let lastSecond = ''
let lastPrefix = ''

/**
 * formatNs of nanoseconds given as decimal text (how the store returns them), for
 * the search's rows: three times a line, 0.33 ms a 100-line page through BigInt
 * and a Date each, 0.02 ms split as text with the second's prefix reused.
 */
export function formatNsText(text: string): string {
  const n = text.length
  // From one second after the epoch, a time's text is its seconds then nine digits.
  if (n < 10 || n > 19 || text.charCodeAt(0) === 45) return formatNs(BigInt(text))
  const second = text.slice(0, n - 9)
  if (second !== lastSecond) {
    lastPrefix = new Date(Number(second) * 1000).toISOString().slice(0, 19) + '.'
    lastSecond = second
  }
  return lastPrefix + text.slice(n - 9) + 'Z'
}
