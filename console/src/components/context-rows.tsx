// The lines around a hit, shown in place in the newest-first table: newer
// lines above the hit, older ones below, each side with a "more" button that
// pages outward from its last line.
import type { LogEvent } from '../types.ts'
import { Highlight } from './highlight.tsx'

export interface ContextState {
  /** resource_id/event_id of the hit. */
  id: string
  /** Time order (oldest first), as the API gives them. */
  before: LogEvent[]
  after: LogEvent[]
  moreBefore: boolean
  moreAfter: boolean
}

interface ContextAnswer { before: LogEvent[]; after: LogEvent[]; more_before: boolean; more_after: boolean }

/** Merges an answer: a first one, or a page outward on one side. */
export function mergeContext(cur: ContextState | null, id: string, r: ContextAnswer, side: 'both' | 'older' | 'newer'): ContextState {
  if (side === 'both' || cur === null) return { id, before: r.before, after: r.after, moreBefore: r.more_before, moreAfter: r.more_after }
  return side === 'older'
    ? { ...cur, before: [...r.before, ...cur.before], moreBefore: r.more_before }
    : { ...cur, after: [...cur.after, ...r.after], moreAfter: r.more_after }
}

function when(ts: string): string {
  const d = new Date(ts)
  return `${d.toLocaleTimeString('en-GB')}.${String(d.getMilliseconds()).padStart(3, '0')}`
}

function Line({ e, terms, cols }: { e: LogEvent; terms: readonly string[]; cols: number }) {
  const level = e.severity || 'UNSET'
  return (
    <tr class="ctx-line">
      <td class="c-time mono">{when(e.timestamp)}</td>
      <td class="c-sev"><span class={`sev sev-${level}`}>{e.severity_text || level}</span></td>
      {cols > 3 && <td class="c-svc">{e.resource_attributes['service.name'] ?? ''}</td>}
      <td class="c-msg mono"><Highlight text={e.message} terms={terms} /></td>
    </tr>
  )
}

/** Newer lines (above the hit, newest first) with their "more" button on top. */
export function NewerLines({ ctx, terms, cols, onMore }: { ctx: ContextState; terms: readonly string[]; cols: number; onMore: () => void }) {
  return (
    <>
      <tr class="ctx-more"><td colSpan={cols}>
        {ctx.moreAfter ? <button type="button" class="btn small" onClick={onMore}>Show newer lines ↑</button> : <span class="muted small">No newer lines</span>}
      </td></tr>
      {[...ctx.after].reverse().map((e) => <Line key={e.event_id} e={e} terms={terms} cols={cols} />)}
    </>
  )
}

/** Older lines (below the hit, newest first) with their "more" button at the bottom. */
export function OlderLines({ ctx, terms, cols, onMore }: { ctx: ContextState; terms: readonly string[]; cols: number; onMore: () => void }) {
  return (
    <>
      {[...ctx.before].reverse().map((e) => <Line key={e.event_id} e={e} terms={terms} cols={cols} />)}
      <tr class="ctx-more"><td colSpan={cols}>
        {ctx.moreBefore ? <button type="button" class="btn small" onClick={onMore}>Show older lines ↓</button> : <span class="muted small">No older lines</span>}
      </td></tr>
    </>
  )
}
