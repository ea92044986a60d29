// A GET read again every few seconds (and at once after a change), for pages
// that watch a state: an answer that arrives after the page moved on is dropped.
import { useEffect, useState } from 'preact/hooks'
import { api } from './api.ts'

export function usePolled<T>(url: string, everyMs: number): { data: T | null; error: string; setError: (e: string) => void; refresh: () => void } {
  const [data, setData] = useState<T | null>(null)
  const [error, setError] = useState('')
  const [tick, setTick] = useState(0)
  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), everyMs)
    return () => clearInterval(t)
  }, [everyMs])
  useEffect(() => {
    let live = true
    api<T>('GET', url).then((d) => {
      if (!live) return
      setData(d)
      setError('')
    }, (e: Error) => live && setError(e.message))
    return () => { live = false }
  }, [url, tick])
  return { data, error, setError, refresh: () => setTick((n) => n + 1) }
}
