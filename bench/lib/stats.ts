// Small measurement helpers shared by the benchmarks.

/** The p-th percentile (0..100) of the values, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)))
  return sorted[rank - 1] as number
}

export function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1)
}

/** Samples this process's RSS until stopped; returns the peak. */
export function rssSampler(everyMs = 100): { stop(): number } {
  let peak = process.memoryUsage.rss()
  const t = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, everyMs)
  return {
    stop() {
      clearInterval(t)
      return Math.max(peak, process.memoryUsage.rss())
    },
  }
}

export interface Summary {
  count: number
  mean: number
  p50: number
  p90: number
  p99: number
  max: number
}

/** Nearest-rank percentiles of the values, sorted once. NaN fields when empty. */
export function summarize(values: readonly number[]): Summary {
  const n = values.length
  if (n === 0) return { count: 0, mean: Number.NaN, p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN }
  const sorted = Float64Array.from(values).sort()
  let sum = 0
  for (let i = 0; i < n; i++) sum += sorted[i] as number
  const at = (p: number) => sorted[Math.min(n, Math.max(1, Math.ceil((p / 100) * n))) - 1] as number
  return { count: n, mean: sum / n, p50: at(50), p90: at(90), p99: at(99), max: sorted[n - 1] as number }
}
