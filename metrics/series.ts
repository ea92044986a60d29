// Counters and histograms for the request path. prom-client's own re-validate
// and re-hash a label object on every call (about 0.2 to 0.5 µs each, several
// per request); these find a series through one Map per label, keyed by the
// label values themselves (route templates and methods are the same string
// objects every time, so their hashes are cached), keep plain numbers, and the
// registry renders them at scrape time through the metric interface it calls
// (name, help, type, get()).
import type { Registry } from 'prom-client'

export type LabelValue = string | number

interface CounterSeries {
  labels: Record<string, LabelValue>
  value: number
}

interface HistogramSeries {
  labels: Record<string, LabelValue>
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  counts: Float64Array
  sum: number
  count: number
}

type Tree<S> = Map<LabelValue, Tree<S> | S>

/** The series at the end of the path of label values, created on first use. */
function find<S>(root: Tree<S>, values: readonly LabelValue[], create: () => S): S {
  let node = root
  const last = values.length - 1
  for (let i = 0; i < last; i++) {
    const v = values[i] as LabelValue
    let next = node.get(v) as Tree<S> | undefined
    if (next === undefined) {
      next = new Map()
      node.set(v, next)
    }
    node = next
  }
  const key = last < 0 ? '' : (values[last] as LabelValue)
  let s = node.get(key) as S | undefined
  if (s === undefined) {
    s = create()
    node.set(key, s)
  }
  return s
}

function labelsOf(names: readonly string[], values: readonly LabelValue[]): Record<string, LabelValue> {
  if (values.length !== names.length) throw new Error(`expected labels ${names.join(', ')}, got ${values.length} values`)
  const out: Record<string, LabelValue> = {}
  for (let i = 0; i < names.length; i++) out[names[i] as string] = values[i] as LabelValue
  return out
}

abstract class Series {
  readonly name: string
  readonly help: string
  readonly labelNames: readonly string[]
  readonly aggregator = 'sum'

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[]) {
    this.name = name
    this.help = help
    this.labelNames = labelNames
    registry.registerMetric(this as never)
  }
}

export class SeriesCounter extends Series {
  readonly type = 'counter'
  readonly #tree: Tree<CounterSeries> = new Map()
  readonly #all: CounterSeries[] = []

  /** Adds `by` to the series with these label values (in labelNames order). */
  inc(values: readonly LabelValue[], by = 1): void {
    find(this.#tree, values, () => {
      const s = { labels: labelsOf(this.labelNames, values), value: 0 }
      this.#all.push(s)
      return s
    }).value += by
  }

  get(): object {
    const values = this.#all.map((s) => ({ labels: s.labels, value: s.value }))
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }

  reset(): void {
    this.#tree.clear()
    this.#all.length = 0
  }
}

export class SeriesHistogram extends Series {
  readonly type = 'histogram'
  readonly #bounds: readonly number[]
  readonly #tree: Tree<HistogramSeries> = new Map()
  readonly #all: HistogramSeries[] = []

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(registry, name, help, labelNames)
    this.#bounds = [...buckets].sort((a, b) => a - b)
  }

  observe(values: readonly LabelValue[], v: number): void {
    if (!Number.isFinite(v)) return
    const s = find(this.#tree, values, () => {
      const fresh = { labels: labelsOf(this.labelNames, values), counts: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 }
      this.#all.push(fresh)
      return fresh
    })
    const b = this.#bounds
    let i = 0
    while (i < b.length && v > (b[i] as number)) i++
    s.counts[i] = (s.counts[i] as number) + 1
    s.sum += v
    s.count++
  }

  get(): object {
    const values: object[] = []
    const name = this.name
    for (const s of this.#all) {
      let cumulative = 0
      for (let i = 0; i <= this.#bounds.length; i++) {
        cumulative += s.counts[i] as number
        const le = i < this.#bounds.length ? (this.#bounds[i] as number) : '+Inf'
        values.push({ labels: { ...s.labels, le }, value: cumulative, metricName: `${name}_bucket` })
      }
      values.push({ labels: s.labels, value: s.sum, metricName: `${name}_sum` })
      values.push({ labels: s.labels, value: s.count, metricName: `${name}_count` })
    }
    return { name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }

  reset(): void {
    this.#tree.clear()
    this.#all.length = 0
  }
}
