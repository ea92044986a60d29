// A check's recent observations: a bar per observation (oldest left) and a response-time chart.
// A missed heartbeat is drawn (striped) unlike a slot with no observation at all (an empty outline).
import { useMemo } from 'preact/hooks'
import type uPlot from 'uplot'
import { AXIS, Chart } from './chart.tsx'
import { fmtDateTime } from '../time.ts'

export interface Result { observed_at: string; status: string; code: string; reason: string; latency_ms: number | null }

const WORD: Record<string, string> = { up: 'up', down: 'down', missing: 'missed heartbeat', unknown: 'unknown', degraded: 'degraded' }

export function UptimeBar({ results }: { results: Result[] }) {
  const shown = results.slice(0, 40).reverse()
  const up = results.filter((r) => r.status === 'up').length
  const missed = results.filter((r) => r.status === 'missing').length
  const label = results.length === 0 ? 'no observations yet'
    : `${up} of ${results.length} recent observations up${missed > 0 ? `, ${missed} missed heartbeat${missed === 1 ? '' : 's'}` : ''}`
  return (
    <div class="uptime" role="img" aria-label={label} title={label}>
      {Array.from({ length: Math.max(0, 40 - shown.length) }, (_, i) => <i key={`e${i}`} class="u-none" />)}
      {shown.map((r, i) => <i key={i} class={`u-${r.status}`} data-status={r.status}
        title={`${WORD[r.status] ?? r.status} · ${fmtDateTime(r.observed_at)}${r.latency_ms === null || r.status !== 'up' ? '' : ` · ${Math.round(r.latency_ms)} ms`}`} />)}
    </div>
  )
}

export function UptimeLegend() {
  return (
    <p class="legend uptime-legend" aria-label="Observation bar legend">
      <span><i class="u-up" />up</span><span><i class="u-down" />down</span><span><i class="u-missing" />missed heartbeat</span>
      <span><i class="u-unknown" />unknown</span><span><i class="u-none" />no observation</span>
    </p>
  )
}

export function ResponseTimes({ results }: { results: Result[] }) {
  const data = useMemo(() => {
    const rs = [...results].reverse()
    // A failed probe has no response time: a gap, not a zero.
    return [rs.map((r) => Date.parse(r.observed_at) / 1000), rs.map((r) => (r.status === 'up' ? r.latency_ms : null))] as uPlot.AlignedData
  }, [results])
  const options = useMemo(() => ({
    height: 160, legend: { show: false },
    scales: { x: { time: true } },
    axes: [{ ...AXIS }, { ...AXIS, size: 72, values: (_u: uPlot, v: number[]) => v.map((n) => `${+n.toFixed(2)} ms`) }],
    series: [{}, { label: 'latency', stroke: '#58a6ff', width: 2, fill: 'rgba(88,166,255,0.12)', spanGaps: false, points: { show: true, size: 4 } }],
  }), [])
  if (results.length === 0) return <p class="muted">No observations yet.</p>
  return <div class="rt"><h3>Response time</h3><Chart options={options} data={data} label={`Response times of the last ${results.length} observations`} shape="rt" /></div>
}
