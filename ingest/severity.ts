// Severity levels: OTLP severity numbers 1..24 fall into six named ranges.
export const SEVERITY_RANGES = {
  TRACE: [1, 4],
  DEBUG: [5, 8],
  INFO: [9, 12],
  WARN: [13, 16],
  ERROR: [17, 20],
  FATAL: [21, 24],
} as const
export type SeverityName = keyof typeof SEVERITY_RANGES
export const SEVERITY_NAMES = Object.keys(SEVERITY_RANGES) as SeverityName[]

/** The canonical name of an OTLP severity number ('' for 0, unspecified). */
export function severityNameOf(n: number): string {
  if (n <= 0 || n > 24) return ''
  return SEVERITY_NAMES[Math.floor((n - 1) / 4)] as string
}

// Text aliases senders use, mapped to the first number of their range.
const TEXT_TO_NUMBER: Record<string, number> = {
  trace: 1, debug: 5, info: 9, information: 9, informational: 9, notice: 10,
  warn: 13, warning: 13, error: 17, err: 17, critical: 21, crit: 21, fatal: 21,
  alert: 22, emergency: 23, emerg: 23, panic: 23,
}

/** Severity number for a severity text; 0 when the text names no level. */
export function severityNumberFromText(text: string): number {
  return TEXT_TO_NUMBER[text.toLowerCase()] ?? 0
}
