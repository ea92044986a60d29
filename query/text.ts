// The search language of `q` (cloud) and `text` (desktop): terms ANDed,
// "double-quoted phrases", -excluded terms, a OR b, case-insensitive, each
// term matched against the message and every attribute value; any other
// syntax is refused in words rather than silently matching nothing. Parsed once per request; the same
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
  /** Every one must match (AND). */
  terms: SearchTerm[]
  /** `a OR b`: each group needs one of its terms. */
  anyOf: SearchTerm[][]
  /** `-word`, `-"a phrase"`: none may match. */
  not: SearchTerm[]
}

/** A `q` the language does not support (field:value, wildcards, regexes, stray operators): the message says why, in words. */
export class TextSyntaxError extends Error {
  override name = 'TextSyntaxError'
}

/** What the language supports, for every refusal's message. */
export const TEXT_SYNTAX_HELP = 'supported: words (all must match), "a phrase", -word to exclude, a OR b'

// ClickHouse's splitByNonAlpha: runs of ASCII letters and digits and of any non-ASCII character.
const WORD_RE = /[A-Za-z0-9\u0080-\uffff]+/g
const ASCII_WORD_RE = /^[a-z0-9]+$/
// name:value, the field syntax of Lucene/Kibana/Loki-like languages (a host:port has no letter-led name).
const FIELD_RE = /^([A-Za-z_][A-Za-z0-9_.]*):(.+)$/
// /regex/ with at least one regex operator inside (a plain /api/v1/ path is a word).
const REGEX_RE = /^\/.*[*+?[\]()|\\^$].*\/[a-z]*$/

/** The words of a string as the text index on lower(…) sees them: ASCII letters lower-cased, others as written. */
export function tokensOf(s: string): string[] {
  const out: string[] = []
  for (const m of s.matchAll(WORD_RE)) out.push(m[0].replace(/[A-Z]+/g, (c) => c.toLowerCase()))
  return out
}

/** The words of a text the index can look up: its ASCII words, lower-cased, once each. */
export function indexTokens(text: string): string[] {
  return [...new Set(tokensOf(text).filter((w) => ASCII_WORD_RE.test(w)))]
}

function termOf(text: string): SearchTerm {
  return { text, tokens: indexTokens(text) }
}

interface Piece {
  text: string
  quoted: boolean
  negated: boolean
}

/**
 * Splits a query into its pieces: whitespace separates words; a double quote at
 * the start of a piece opens a phrase that runs to the next double quote (or to
 * the end); a leading `-` followed by a letter, digit or quote excludes the piece.
 */
function piecesOf(q: string): Piece[] {
  const out: Piece[] = []
  let i = 0
  const n = q.length
  while (i < n) {
    while (i < n && isSpace(q.charCodeAt(i))) i++
    if (i >= n) break
    let negated = false
    if (q[i] === '-' && i + 1 < n && !isSpace(q.charCodeAt(i + 1)) && q[i + 1] !== '-') {
      negated = true
      i++
    }
    if (q[i] === '"') {
      const close = q.indexOf('"', i + 1)
      const end = close === -1 ? n : close
      out.push({ text: q.slice(i + 1, end).trim(), quoted: true, negated })
      i = end + 1
    } else {
      const start = i
      while (i < n && !isSpace(q.charCodeAt(i))) i++
      out.push({ text: q.slice(start, i), quoted: false, negated })
    }
  }
  return out
}

/** Refuses an unquoted word the language does not support. */
function checkWord(p: Piece): void {
  if (p.quoted) return
  const w = p.text
  const field = FIELD_RE.exec(w)
  if (field !== null) {
    throw new TextSyntaxError(`"${w}" looks like a field:value search, which the text search does not support; ` +
      `filter on a field with attr.${field[1]}=${field[2]} (a log attribute) or resource.${field[1]}=${field[2]} (a resource attribute), ` +
      `or put it in double quotes to search for the text itself (${TEXT_SYNTAX_HELP})`)
  }
  if (w.includes('*')) {
    throw new TextSyntaxError(`"${w}": wildcards (*) are not supported; words match whole words, so search for the full word, or put it in double quotes to search for a literal * (${TEXT_SYNTAX_HELP})`)
  }
  if (REGEX_RE.test(w)) throw new TextSyntaxError(`"${w}": regular expressions are not supported (${TEXT_SYNTAX_HELP})`)
  if (w === 'AND') throw new TextSyntaxError(`AND is not needed: words are already all required (${TEXT_SYNTAX_HELP})`)
  if (w === 'NOT') throw new TextSyntaxError(`NOT is not supported: put a - before the word to exclude it, as in -timeout (${TEXT_SYNTAX_HELP})`)
}

/**
 * Parses a query: words and "phrases" that must all match, `-word` / `-"phrase"`
 * that must not, `a OR b` groups (OR in capitals, between plain words or phrases).
 * Repeated terms count once. null when nothing is left to search for; a
 * TextSyntaxError for syntax the language does not support.
 */
export function parseTextQuery(q: string): TextQuery | null {
  const pieces = piecesOf(q)
  const terms: SearchTerm[] = []
  const anyOf: SearchTerm[][] = []
  const not: SearchTerm[] = []
  const seen = new Set<string>()
  const seenNot = new Set<string>()
  let group: SearchTerm[] | null = null
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i] as Piece
    if (!p.quoted && p.text === 'OR') {
      const prev = pieces[i - 1]
      const next = pieces[i + 1]
      if (prev === undefined || next === undefined || (!next.quoted && next.text === 'OR')) {
        throw new TextSyntaxError(`OR needs a word or phrase on each side, as in timeout OR refused (${TEXT_SYNTAX_HELP})`)
      }
      if (prev.negated || next.negated) throw new TextSyntaxError(`OR joins words or phrases, not excluded ones (-word) (${TEXT_SYNTAX_HELP})`)
      continue
    }
    checkWord(p)
    if (p.text === '') continue
    if (p.negated) {
      const key = p.text.toLowerCase()
      if (!seenNot.has(key)) not.push(termOf(p.text))
      seenNot.add(key)
      continue
    }
    const joined = i > 0 && pieces[i - 1]?.quoted === false && pieces[i - 1]?.text === 'OR'
    const opens = pieces[i + 1]?.quoted === false && pieces[i + 1]?.text === 'OR'
    if (joined && group !== null) {
      group.push(termOf(p.text))
      if (!opens) group = null
      continue
    }
    if (opens) {
      group = [termOf(p.text)]
      anyOf.push(group)
      continue
    }
    const key = p.text.toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    terms.push(termOf(p.text))
  }
  return terms.length === 0 && anyOf.length === 0 && not.length === 0 ? null : { terms, anyOf, not }
}

/** The terms a match may show (every term that is searched for, not the excluded ones): what the console highlights. */
export function positiveTerms(q: TextQuery): SearchTerm[] {
  return [...q.terms, ...q.anyOf.flat()]
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

function termAnywhere(term: SearchTerm, message: string, msgLower: string, values: string[], lowered: string[]): boolean {
  if (termMatches(term, message, msgLower)) return true
  for (let i = 0; i < values.length; i++) if (termMatches(term, values[i] as string, lowered[i] as string)) return true
  return false
}

/** The live tail's evaluation of a query on one event (the SQL builder's twin). */
export function matchesText(q: TextQuery, message: string, attributes: Record<string, string>): boolean {
  const msgLower = message.toLowerCase()
  const values = Object.values(attributes)
  const lowered = values.map((v) => v.toLowerCase())
  for (const term of q.terms) if (!termAnywhere(term, message, msgLower, values, lowered)) return false
  for (const group of q.anyOf) {
    let found = false
    for (let i = 0; i < group.length && !found; i++) found = termAnywhere(group[i] as SearchTerm, message, msgLower, values, lowered)
    if (!found) return false
  }
  for (const term of q.not) if (termAnywhere(term, message, msgLower, values, lowered)) return false
  return true
}
