// The searched words marked in a text (case-insensitive, every occurrence).
import type { JSX } from 'preact'

export function Highlight({ text, terms }: { text: string; terms: readonly string[] }): JSX.Element {
  if (terms.length === 0) return <>{text}</>
  const lower = text.toLowerCase()
  const needles = terms.map((t) => t.toLowerCase())
  const parts: (string | JSX.Element)[] = []
  let i = 0
  while (i < text.length) {
    // The earliest next occurrence of any term (the longest at one place).
    let at = -1
    let len = 0
    for (const n of needles) {
      const j = lower.indexOf(n, i)
      if (j !== -1 && (at === -1 || j < at || (j === at && n.length > len))) {
        at = j
        len = n.length
      }
    }
    if (at === -1) break
    if (at > i) parts.push(text.slice(i, at))
    parts.push(<mark key={at}>{text.slice(at, at + len)}</mark>)
    i = at + len
  }
  if (i < text.length) parts.push(text.slice(i))
  return <>{parts}</>
}
