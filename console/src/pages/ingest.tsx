// The pipeline of this process over the last hour (sampled in process; GET /v1/pipeline).
import { useEffect, useMemo, useState } from 'preact/hooks'
import type uPlot from 'uplot'
import { api } from '../api.ts'
import { AXIS, Chart } from '../components/chart.tsx'
import type { Session } from '../types.ts'

interface Sample { at: number; accepted_per_s: number; stored_per_s: number; backlog_messages: number | null; ack_pending: number | null; dead_letters: number | null; loader_lag_s: number | null; refused_per_s: Record<string, number> }
const COLORS = ['#58a6ff', '#3fb950', '#d29922', '#f85149', '#db61a2', '#a371f7', '#8b949e']

function Panel({ title, samples, series }: { title: string; samples: Sample[]; series: [string, (s: Sample) => number | null][] }) {
  const data = useMemo(() => [samples.map((s) => s.at / 1000), ...series.map(([, pick]) => samples.map(pick))] as uPlot.AlignedData, [samples, series.length])
  const options = useMemo(() => ({
    height: 170, legend: { show: true, live: false },
    scales: { x: { time: true }, y: { range: (_u: uPlot, _a: number, b: number): uPlot.Range.MinMax => [0, Math.max(1, b * 1.1)] } },
    axes: [{ ...AXIS }, { ...AXIS, size: 50 }],
    series: [{}, ...series.map(([label], i) => ({ label, stroke: COLORS[i % COLORS.length], width: 2 }))],
  }), [series.map((s) => s[0]).join()])
  const last = samples[samples.length - 1]
  return (
    <section class="card panel" aria-label={title}>
      <h2>{title}</h2>
      <div class="now">{series.map(([label, pick]) => <span key={label}>{label}: <strong>{last === undefined ? '–' : fmt(pick(last))}</strong></span>)}</div>
      <Chart options={options} data={data} label={`${title} over the last hour`} shape={series.map((s) => s[0]).join()} />
    </section>
  )
}

const fmt = (n: number | null) => (n === null ? '–' : n >= 100 ? Math.round(n).toLocaleString('en') : n.toFixed(n === 0 ? 0 : 1))

export function Ingest({ session }: { session: Session }) {
  const [samples, setSamples] = useState<Sample[]>([])
  const [interval, setIntervalS] = useState<number | null>(null)
  const [error, setError] = useState('')
  useEffect(() => {
    let live = true
    const load = () => api<{ samples: Sample[]; interval_seconds: number | null }>('GET', '/v1/pipeline').then((r) => {
      if (!live) return
      setSamples(r.samples)
      setIntervalS(r.interval_seconds)
      setError('')
    }, (e: Error) => live && setError(e.message))
    void load()
    const t = setInterval(load, 10_000)
    return () => { live = false; clearInterval(t) }
  }, [])
  const reasons = [...new Set(samples.flatMap((s) => Object.keys(s.refused_per_s)))].sort()
  void session
  return (
    <div class="page">
      <div class="page-head"><h1>Ingest</h1><span class="muted">This process, last hour{interval !== null ? `, a sample every ${interval}s` : ''}. With several api or loader processes, scrape each one's <code>/metrics</code> instead.</span></div>
      {error !== '' && <div class="error banner" role="alert">{error}</div>}
      {samples.length < 2 && error === '' && <p class="muted card">Collecting samples… the charts fill in over the next minute.</p>}
      <div class="panels">
        <Panel title="Events per second" samples={samples} series={[['accepted', (s) => s.accepted_per_s], ['stored', (s) => s.stored_per_s]]} />
        <Panel title="JetStream backlog (messages not loaded yet)" samples={samples} series={[['in stream', (s) => s.backlog_messages], ['delivered, unacknowledged', (s) => s.ack_pending]]} />
        <Panel title="Loader lag (age of the oldest event not loaded yet, s)" samples={samples} series={[['seconds', (s) => s.loader_lag_s]]} />
        <Panel title="Refused requests per second" samples={samples} series={reasons.length === 0 ? [['refused', () => 0]] : reasons.map((r) => [r, (s: Sample) => s.refused_per_s[r] ?? 0] as [string, (s: Sample) => number])} />
        <Panel title="Dead letters" samples={samples} series={[['messages', (s) => s.dead_letters]]} />
      </div>
    </div>
  )
}
