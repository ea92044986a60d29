// Log volume over the range, stacked by level; dragging across it narrows the range.
import uPlot from 'uplot'
import { useMemo } from 'preact/hooks'
import { AXIS, Chart } from './chart.tsx'
import { LEVELS, LEVEL_COLORS } from '../types.ts'

export interface HistogramData {
  bucket_seconds: number
  total: number
  buckets: { start: string; total: number; counts: Record<string, number> }[]
}

const TOP_DOWN = [...LEVELS].reverse()

export function Histogram({ data, onZoom }: { data: HistogramData; onZoom: (startMs: number, endMs: number) => void }) {
  const aligned = useMemo(() => {
    const xs = data.buckets.map((b) => Date.parse(b.start) / 1000)
    // Stacked: each level's series is the sum of it and every level below it, drawn top level first.
    const series = TOP_DOWN.map((_, i) => data.buckets.map((b) => TOP_DOWN.slice(i).reduce((a, l) => a + (b.counts[l] ?? 0), 0)))
    return [xs, ...series] as uPlot.AlignedData
  }, [data])
  const options = useMemo(() => ({
    height: 140,
    legend: { show: false },
    cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
    scales: { x: { time: true }, y: { range: (_u: uPlot, _min: number, max: number): uPlot.Range.MinMax => [0, Math.max(1, max)] } },
    axes: [{ ...AXIS }, { ...AXIS, size: 44, values: (_u: uPlot, v: number[]) => v.map((n) => (n >= 1000 ? `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)}k` : String(n))) }],
    series: [{}, ...TOP_DOWN.map((l) => ({
      label: l, fill: LEVEL_COLORS[l], stroke: LEVEL_COLORS[l], width: 0, points: { show: false },
      paths: uPlot.paths.bars!({ size: [0.9, 40], align: 1 }),
    }))],
    hooks: {
      setSelect: [(u: uPlot) => {
        if (u.select.width < 3) return
        const a = u.posToVal(u.select.left, 'x') * 1000
        const b = u.posToVal(u.select.left + u.select.width, 'x') * 1000
        u.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false)
        onZoom(Math.floor(a), Math.ceil(b))
      }],
    },
  }), [onZoom])
  const nonEmpty = data.buckets.filter((b) => b.total > 0)
  return (
    <section class="histogram" aria-label="Log volume">
      <Chart options={options} data={aligned} label={`Log volume: ${data.total} events in ${data.buckets.length} buckets of ${data.bucket_seconds} s; drag to zoom`} shape="hist" />
      <div class="legend" aria-hidden="true">
        {LEVELS.filter((l) => l !== 'UNSET').map((l) => <span key={l}><i style={{ background: LEVEL_COLORS[l] }} />{l}</span>)}
      </div>
      <table class="sr-only" data-testid="histogram-table">
        <caption>Events per bucket ({data.bucket_seconds} s)</caption>
        <thead><tr><th scope="col">bucket start</th><th scope="col">events</th></tr></thead>
        <tbody>{nonEmpty.map((b) => <tr key={b.start}><td>{b.start}</td><td>{b.total}</td></tr>)}</tbody>
      </table>
    </section>
  )
}
