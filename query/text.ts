// The search language of `q` (cloud) and `text` (desktop): terms ANDed,
// "double-quoted phrases", case-insensitive, each term matched against the
// message and every attribute value. Parsed once per request; the same
// semantics run in ClickHouse (sql.ts) and, for the live tail, here.

export interface SearchTerm {
  /** The term as given: a word, or the inside of a phrase. Matched as a case-insensitive substring. */
  text: string
  /**
   * Its ASCII words, lower-cased: what the text index looks up, and what must
   * be whole words of the matched text. (Words with other letters are left to
   * the substring match: lower() in the index only folds ASCII.)
   */
  tokens: string[]
}

export interface TextQuery {
  terms: SearchTerm[]
}

// ClickHouse's splitByNonAlpha: runs of ASCII letters and digits and of any non-ASCII character.
const WORD_RE = /[A-Za-z0-9\u0080-\uffff]+/g
const ASCII_WORD_RE = /^[a-z0-9]+$/

/** The words of a string as the text index on lower(…) sees them: ASCII letters lower-cased, others as written. */
export function tokensOf(s: string): string[] {
  const out: string[] = []
  for (const m of s.matchAll(WORD_RE)) out.push(m[0].replace(/[A-Z]+/g, (c) => c.toLowerCase()))
  return out
}

/**
 * Splits a query into terms: whitespace separates words; a double quote at the
 * start of a term opens a phrase that runs to the next double quote (or to the
 * end). Repeated terms count once. null when nothing is left to search for.
 */
export function parseTextQuery(q: string): TextQuery | null {
  const seen = new Set<string>()
  const terms: SearchTerm[] = []
  const add = (text: string) => {
    const key = text.toLowerCase()
    if (text === '' || seen.has(key)) return
    seen.add(key)
    terms.push({ text, tokens: [...new Set(tokensOf(text).filter((w) => ASCII_WORD_RE.test(w)))] })
  }
  let i = 0
  const n = q.length
  while (i < n) {
    while (i < n && isSpace(q.charCodeAt(i))) i++
    if (i >= n) break
    if (q[i] === '"') {
      const close = q.indexOf('"', i + 1)
      const end = close === -1 ? n : close
      add(q.slice(i + 1, end).trim())
      i = end + 1
    } else {
      const start = i
      while (i < n && !isSpace(q.charCodeAt(i))) i++
      add(q.slice(start, i))
    }
  }
  return terms.length === 0 ? null : { terms }
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0
}

/** Whether one term matches one text: every word is a whole word of it, and the term occurs in it. */
function termMatches(term: SearchTerm, text: string, lowered: string): boolean {
  if (!lowered.includes(term.text.toLowerCase())) return false
  if (term.tokens.length === 0) return true
  const words = new Set(tokensOf(text))
  for (const t of term.tokens) if (!words.has(t)) return false
  return true
}

/** The live tail's evaluation of a query on one event (the SQL builder's twin). */
export function matchesText(q: TextQuery, message: string, attributes: Record<string, string>): boolean {
  const msgLower = message.toLowerCase()
  const values = Object.values(attributes)
  const lowered = values.map((v) => v.toLowerCase())
  for (const term of q.terms) {
    if (termMatches(term, message, msgLower)) continue
    let found = false
    for (let i = 0; i < values.length && !found; i++) found = termMatches(term, values[i] as string, lowered[i] as string)
    if (!found) return false
  }
  return true
}
