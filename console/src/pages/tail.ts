// The live tail: the server's SSE stream (EventSource resumes after a dropped
// connection with Last-Event-ID, so nothing is lost or repeated). While the
// user reads further down, new lines wait and are counted.
import { useEffect, useRef, useState } from 'preact/hooks'
import type { RefObject } from 'preact'
import type { LogEvent } from '../types.ts'

export function useTail(url: string | null, list: RefObject<HTMLElement | null>, add: (e: LogEvent) => void) {
  const [connected, setConnected] = useState(false)
  const [pending, setPending] = useState(0)
  const held = useRef<LogEvent[]>([])
  const addRef = useRef(add)
  addRef.current = add
  useEffect(() => {
    if (url === null) return
    const es = new EventSource(url)
    es.onopen = () => setConnected(true)
    es.onerror = () => setConnected(false)
    es.onmessage = (m) => {
      const ev = JSON.parse(m.data as string) as LogEvent
      const scrolled = (list.current?.scrollTop ?? 0) > 40
      if (scrolled) {
        held.current.push(ev)
        setPending(held.current.length)
      } else addRef.current(ev)
    }
    return () => {
      es.close()
      setConnected(false)
      flush()
    }
  }, [url])
  const flush = () => {
    for (const ev of held.current) addRef.current(ev)
    held.current = []
    setPending(0)
  }
  // Back at the top: the held lines go in.
  useEffect(() => {
    const el = list.current
    if (el === null) return
    const on = () => { if (el.scrollTop <= 40 && held.current.length > 0) flush() }
    el.addEventListener('scroll', on, { passive: true })
    return () => el.removeEventListener('scroll', on)
  }, [list.current])
  const resume = () => {
    list.current?.scrollTo({ top: 0 })
    flush()
  }
  return { connected, pending, resume }
}
