// Plots as standalone SVG files: a line/scatter chart and a stacked bar chart,
// with axes, ticks, a legend and escaped text. No dependencies.

export interface Series {
  name: string
  points: readonly (readonly [number, number])[]
  /** Draw markers only (no line). */
  scatter?: boolean
}

export interface LineChart {
  title: string
  xLabel: string
  yLabel: string
  series: readonly Series[]
  logY?: boolean
  /** Start the x axis at 0 (rates). */
  xFromZero?: boolean
  /** Vertical marker lines with labels (e.g. step boundaries). */
  markers?: readonly { x: number; label: string }[]
}

export interface StackedBars {
  title: string
  yLabel: string
  /** One bar per category. */
  categories: readonly string[]
  stacks: readonly { name: string; values: readonly number[] }[]
}

const W = 860
const H = 480
const M = { left: 78, right: 190, top: 44, bottom: 64 }
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf']

export function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c] as string)
}

/** About `count` round tick values covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 6): number[] {
  if (!(hi > lo)) {
    const v = Number.isFinite(lo) ? lo : 0
    return [v]
  }
  const raw = (hi - lo) / Math.max(1, count)
  const mag = 10 ** Math.floor(Math.log10(raw))
  const step = ([1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag)
  const out: number[] = []
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)))
  return out
}

/** A tick label with k/M suffixes and as many decimals as the tick spacing needs. */
export function fmtTick(v: number, step = 0): string {
  if (v === 0) return '0'
  const a = Math.max(Math.abs(v), Math.abs(step))
  const [div, suffix] = a >= 1e6 ? [1e6, 'M'] : a >= 1e3 ? [1e3, 'k'] : [1, '']
  // Enough decimals to write the spacing (2.5 needs one); without a spacing, three significant digits.
  if (step <= 0) return `${Number((v / div).toPrecision(3))}${suffix}`
  const scaled = step / div
  let decimals = 0
  while (decimals < 6 && Math.abs(Math.round(scaled * 10 ** decimals) - scaled * 10 ** decimals) > 1e-6) decimals++
  return `${Number((v / div).toFixed(decimals))}${suffix}`
}

function frame(title: string, xLabel: string, yLabel: string, body: string): string {
  const pw = W - M.left - M.right
  const ph = H - M.top - M.bottom
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="24" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="${M.left + pw / 2}" y="${H - 16}" text-anchor="middle">${escapeXml(xLabel)}</text>`,
    `<text x="18" y="${M.top + ph / 2}" text-anchor="middle" transform="rotate(-90 18 ${M.top + ph / 2})">${escapeXml(yLabel)}</text>`,
    body,
    '</svg>',
    '',
  ].join('\n')
}

function legend(names: readonly string[]): string {
  return names.map((n, i) => {
    const y = M.top + 10 + i * 20
    const x = W - M.right + 16
    return `<rect x="${x}" y="${y - 9}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/><text x="${x + 18}" y="${y + 1}">${escapeXml(n)}</text>`
  }).join('\n')
}

export function lineChart(c: LineChart): string {
  const pw = W - M.left - M.right
  const ph = H - M.top - M.bottom
  const all = c.series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!c.logY || y > 0))
  if (all.length === 0) return frame(c.title, c.xLabel, c.yLabel, `<text x="${M.left + pw / 2}" y="${M.top + ph / 2}" text-anchor="middle">no data</text>`)
  let x0 = Math.min(...all.map((p) => p[0]), ...(c.markers ?? []).map((m) => m.x))
  let x1 = Math.max(...all.map((p) => p[0]), ...(c.markers ?? []).map((m) => m.x))
  if (c.xFromZero) x0 = Math.min(0, x0)
  if (x1 === x0) {
    const pad = Math.abs(x0) * 0.1 || 1
    x0 -= pad
    x1 += pad
  }
  const ty = (v: number) => (c.logY ? Math.log10(v) : v)
  let y0 = c.logY ? Math.floor(Math.min(...all.map((p) => ty(p[1])))) : Math.min(0, ...all.map((p) => p[1]))
  let y1 = c.logY ? Math.ceil(Math.max(...all.map((p) => ty(p[1])))) : Math.max(...all.map((p) => p[1])) * 1.08
  if (y1 <= y0) y1 = y0 + 1
  const sx = (x: number) => M.left + ((x - x0) / (x1 - x0)) * pw
  const sy = (y: number) => M.top + ph - ((ty(y) - y0) / (y1 - y0)) * ph
  const parts: string[] = []
  // Log axes: every decade, and 2 and 5 within it when there are few decades.
  const yTicks = c.logY
    ? Array.from({ length: y1 - y0 + 1 }, (_, i) => 10 ** (y0 + i)).flatMap((d) => (y1 - y0 <= 3 ? [d, 2 * d, 5 * d] : [d])).filter((t) => Math.log10(t) <= y1 + 1e-9)
    : niceTicks(y0, y1)
  const yStep = c.logY ? 0 : (yTicks[1] ?? 0) - (yTicks[0] ?? 0)
  for (const t of yTicks) {
    const y = sy(t)
    parts.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#e5e5e5"/>`)
    parts.push(`<text x="${M.left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${fmtTick(t, yStep)}</text>`)
  }
  const xTicks = niceTicks(x0, x1)
  const xStep = (xTicks[1] ?? 0) - (xTicks[0] ?? 0)
  for (const t of xTicks) {
    const x = sx(t)
    parts.push(`<line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${M.top + ph}" y2="${M.top + ph + 5}" stroke="#333"/>`)
    parts.push(`<text x="${x.toFixed(1)}" y="${M.top + ph + 18}" text-anchor="middle">${fmtTick(t, xStep)}</text>`)
  }
  parts.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`)
  for (const m of c.markers ?? []) {
    const x = sx(m.x).toFixed(1)
    parts.push(`<line x1="${x}" x2="${x}" y1="${M.top}" y2="${M.top + ph}" stroke="#999" stroke-dasharray="4 3"/>`)
    parts.push(`<text x="${Number(x) + 3}" y="${M.top + 12}" font-size="10" fill="#666">${escapeXml(m.label)}</text>`)
  }
  c.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]
    const pts = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!c.logY || y > 0))
    if (!s.scatter && pts.length > 1) {
      parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ')}"/>`)
    }
    for (const [x, y] of pts) parts.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="${s.scatter ? 2.5 : 3.5}" fill="${color}"/>`)
  })
  parts.push(legend(c.series.map((s) => s.name)))
  return frame(c.title, c.xLabel, c.yLabel, parts.join('\n'))
}

export function stackedBars(c: StackedBars): string {
  const pw = W - M.left - M.right
  const ph = H - M.top - M.bottom
  const n = c.categories.length
  const val = (v: number | undefined) => (v !== undefined && Number.isFinite(v) && v > 0 ? v : 0)
  const totals = c.categories.map((_, j) => c.stacks.reduce((s, st) => s + val(st.values[j]), 0))
  const top = Math.max(0, ...totals.filter(Number.isFinite))
  if (n === 0 || !(top > 0)) return frame(c.title, '', c.yLabel, `<text x="${M.left + pw / 2}" y="${M.top + ph / 2}" text-anchor="middle">no data</text>`)
  const ticks = niceTicks(0, top * 1.08)
  const step = (ticks[1] ?? 0) - (ticks[0] ?? 0)
  const y1 = Math.max(top * 1.08, ticks[ticks.length - 1] ?? 0)
  const sy = (v: number) => M.top + ph - (v / y1) * ph
  const parts: string[] = []
  for (const t of ticks) {
    parts.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${sy(t).toFixed(1)}" y2="${sy(t).toFixed(1)}" stroke="#e5e5e5"/>`)
    parts.push(`<text x="${M.left - 6}" y="${(sy(t) + 4).toFixed(1)}" text-anchor="end">${fmtTick(t, step)}</text>`)
  }
  const slot = pw / n
  const bw = Math.min(80, slot * 0.6)
  for (let j = 0; j < n; j++) {
    const x = M.left + slot * j + (slot - bw) / 2
    let acc = 0
    c.stacks.forEach((st, i) => {
      const v = val(st.values[j])
      if (v === 0) return
      parts.push(`<rect x="${x.toFixed(1)}" y="${sy(acc + v).toFixed(1)}" width="${bw.toFixed(1)}" height="${(sy(acc) - sy(acc + v)).toFixed(1)}" fill="${COLORS[i % COLORS.length]}"><title>${escapeXml(`${st.name}: ${v.toFixed(2)}`)}</title></rect>`)
      acc += v
    })
    parts.push(`<text x="${(x + bw / 2).toFixed(1)}" y="${(sy(acc) - 4).toFixed(1)}" text-anchor="middle" font-size="10">${(totals[j] as number).toFixed(1)}</text>`)
    parts.push(`<text x="${(x + bw / 2).toFixed(1)}" y="${M.top + ph + 16}" text-anchor="middle" font-size="10">${escapeXml(c.categories[j] as string)}</text>`)
  }
  parts.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`)
  parts.push(legend(c.stacks.map((s) => s.name)))
  return frame(c.title, '', c.yLabel, parts.join('\n'))
}
