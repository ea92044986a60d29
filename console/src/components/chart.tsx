// A uPlot chart that follows its container's width.
import uPlot from 'uplot'
import { useEffect, useRef } from 'preact/hooks'

export interface ChartProps {
  options: Omit<uPlot.Options, 'width'>
  data: uPlot.AlignedData
  label: string
  /** Rebuild the chart when this changes (series set, hooks). */
  shape?: string
}

export function Chart({ options, data, label, shape = '' }: ChartProps) {
  const box = useRef<HTMLDivElement>(null)
  const plot = useRef<uPlot | null>(null)
  useEffect(() => {
    const el = box.current
    if (el === null) return
    const u = new uPlot({ ...options, width: Math.max(200, el.clientWidth) } as uPlot.Options, data, el)
    plot.current = u
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height: options.height }))
    ro.observe(el)
    return () => {
      ro.disconnect()
      u.destroy()
      plot.current = null
    }
  }, [shape])
  useEffect(() => {
    plot.current?.setData(data)
  }, [data])
  return <div class="chart" ref={box} role="img" aria-label={label} />
}

export const AXIS = { stroke: '#8b949e', grid: { stroke: 'rgba(139,148,158,0.15)', width: 1 }, ticks: { stroke: 'rgba(139,148,158,0.25)', width: 1 } }
