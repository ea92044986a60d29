// One date format for the whole console: "2026-11-27 03:12:07 UTC", or the
// browser's local time with its zone when the URL says tz=local. The choice
// lives in the URL (router.ts carries it on every link), so a shared link shows
// the same times.
import { parseHash } from './router.ts'

export type Tz = 'utc' | 'local'

export function tzOf(params: URLSearchParams = parseHash().params): Tz {
  return params.get('tz') === 'local' ? 'local' : 'utc'
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** The local zone's short name ("CET", "GMT+1"), or UTC. */
function zoneName(d: Date, tz: Tz): string {
  if (tz === 'utc') return 'UTC'
  const part = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName')
  return part?.value ?? 'local'
}

function parts(d: Date, tz: Tz): { date: string; time: string } {
  return tz === 'utc'
    ? { date: `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`, time: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}` }
    : { date: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`, time: `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}` }
}

/** "2026-11-27 03:12:07 UTC"; "–" for a missing time. */
export function fmtDateTime(iso: string | null | undefined, tz: Tz = tzOf()): string {
  if (iso == null) return '–'
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  const p = parts(d, tz)
  return `${p.date} ${p.time} ${zoneName(d, tz)}`
}

/** The time of day alone when it is today (in the chosen zone), else the full date and time. */
export function fmtWhen(iso: string, tz: Tz = tzOf(), now = Date.now()): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  const p = parts(d, tz)
  return p.date === parts(new Date(now), tz).date ? `${p.time} ${zoneName(d, tz)}` : `${p.date} ${p.time} ${zoneName(d, tz)}`
}

/** "45 s", "14 min", "3 h 5 min", "2 d 4 h". */
export function fmtDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min`
  const h = Math.floor(m / 60)
  if (h < 24) return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`
  const d = Math.floor(h / 24)
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`
}

/** "since 03:12:07 UTC, 14 min". */
export function fmtSince(iso: string | null | undefined, tz: Tz = tzOf(), now = Date.now()): string {
  if (iso == null) return ''
  return `since ${fmtWhen(iso, tz, now)}, ${fmtDuration(now - Date.parse(iso))}`
}

/** "14 min ago" (the exact time belongs in a title or beside it). */
export function fmtAgo(iso: string | null | undefined, now = Date.now()): string {
  if (iso == null) return 'never'
  return `${fmtDuration(now - Date.parse(iso))} ago`
}
