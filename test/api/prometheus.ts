// Scrapes read by a Prometheus text-format parser (parse-prometheus-text-format,
// ported from the Prometheus Python client's parser; prom2json-shaped output).
// That parser merges the series of a labelled histogram into one, so histogram
// series are read from a second parse of the same text without the histogram
// TYPE lines, where _bucket, _sum and _count are plain labelled samples.
import parsePrometheusTextFormat from 'parse-prometheus-text-format'

export interface Family {
  name: string
  help: string
  type: string
  metrics: { value?: string; labels?: Record<string, string> }[]
}

export class Scrape {
  readonly text: string
  /** Families as declared (name, type, help). */
  readonly families: Map<string, Family>
  /** Every sample by its series name (histograms as name_bucket, name_sum, name_count). */
  readonly #series: Map<string, Family>

  constructor(text: string) {
    this.text = text
    this.families = new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f]))
    const flat = text.split('\n').filter((l) => !/^# TYPE \S+ histogram$/.test(l)).join('\n')
    // Interleaved _bucket/_sum/_count lines come back as repeated families: merge them.
    this.#series = new Map()
    for (const f of parsePrometheusTextFormat(flat) as Family[]) {
      const seen = this.#series.get(f.name)
      if (seen === undefined) this.#series.set(f.name, { ...f, metrics: [...f.metrics] })
      else seen.metrics.push(...f.metrics)
    }
  }

  #match(series: string, labels: Record<string, string>) {
    const f = this.#series.get(series)
    if (f === undefined) return []
    return f.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  }

  /** Sum of the samples of a counter or gauge whose labels include these. */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.#match(name, labels).reduce((s, m) => s + Number(m.value), 0)
  }

  /** Series of a counter or gauge whose labels include these. */
  samples(name: string, labels: Record<string, string> = {}): { value: number; labels: Record<string, string> }[] {
    return this.#match(name, labels).map((m) => ({ value: Number(m.value), labels: m.labels ?? {} }))
  }

  /** Observations counted by a histogram, over the series whose labels include these. */
  count(name: string, labels: Record<string, string> = {}): number {
    return this.value(`${name}_count`, labels)
  }

  /** Sum of a histogram's observations. */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.value(`${name}_sum`, labels)
  }

  has(name: string): boolean {
    return this.families.has(name)
  }

  type(name: string): string | undefined {
    return this.families.get(name)?.type
  }
}
