// A uPlot chart that follows its container's width.
import uPlot from 'uplot'
import { useEffect, useRef } from 'preact/hooks'
import { tzOf } from '../time.ts'

export interface ChartProps {
  options: Omit<uPlot.Options, 'width'>
  data: uPlot.AlignedData
  label: string
  /** Rebuild the chart when this changes (series set, hooks). */
  shape?: string
}

export function Chart({ options, data, label, shape = '' }: ChartProps) {
  const tz = tzOf()
  const box = useRef<HTMLDivElement>(null)
  const plot = useRef<uPlot | null>(null)
  useEffect(() => {
    const el = box.current
    if (el === null) return
    // Axis times in the console's zone (time.ts): UTC unless the URL says local.
    const tzDate = tz === 'utc' ? (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') : undefined
    const u = new uPlot({ ...options, tzDate, width: Math.max(200, el.clientWidth) } as uPlot.Options, data, el)
    plot.current = u
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height: options.height }))
    ro.observe(el)
    return () => {
      ro.disconnect()
      u.destroy()
      plot.current = null
    }
  }, [shape, tz])
  useEffect(() => {
    plot.current?.setData(data)
  }, [data])
  return <div class="chart" ref={box} role="img" aria-label={label} />
}

export const AXIS = { stroke: '#8b949e', grid: { stroke: 'rgba(139,148,158,0.15)', width: 1 }, ticks: { stroke: 'rgba(139,148,158,0.25)', width: 1 } }
