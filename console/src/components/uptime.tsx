// A check's recent observations: a bar per observation (oldest left) and a response-time chart.
import { useMemo } from 'preact/hooks'
import type uPlot from 'uplot'
import { AXIS, Chart } from './chart.tsx'

export interface Result { observed_at: string; status: string; code: string; reason: string; latency_ms: number | null }

export function UptimeBar({ results }: { results: Result[] }) {
  const shown = results.slice(0, 40).reverse()
  const up = results.filter((r) => r.status === 'up').length
  const label = results.length === 0 ? 'no observations yet' : `${up} of ${results.length} recent observations up`
  return (
    <div class="uptime" role="img" aria-label={label} title={label}>
      {shown.map((r, i) => <i key={i} class={`u-${r.status}`} title={`${r.status} · ${new Date(r.observed_at).toLocaleTimeString('en-GB')}${r.latency_ms === null ? '' : ` · ${Math.round(r.latency_ms)} ms`}`} />)}
      {Array.from({ length: Math.max(0, 40 - shown.length) }, (_, i) => <i key={`e${i}`} class="u-none" />)}
    </div>
  )
}

export function ResponseTimes({ results }: { results: Result[] }) {
  const data = useMemo(() => {
    const rs = [...results].reverse()
    return [rs.map((r) => Date.parse(r.observed_at) / 1000), rs.map((r) => r.latency_ms)] as uPlot.AlignedData
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
