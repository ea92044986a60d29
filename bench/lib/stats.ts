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
