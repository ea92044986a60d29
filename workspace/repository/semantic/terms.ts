// Words of code for the semantic view: identifiers split at camelCase,
// PascalCase, snake_case, kebab-case and digit boundaries (`parseHTTPResponse`
// → parse, http, response, and the whole `parsehttpresponse`), lower-cased, a
// plural's `s` dropped, and the commonest English words of comments left out.
const WORD = /[A-Za-z0-9_$]+/g
const SPLIT = /[_$]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])/
const STOP = new Set(['the', 'a', 'an', 'of', 'to', 'in', 'is', 'are', 'and', 'or', 'for', 'on', 'with', 'by', 'it', 'its', 'this', 'that', 'be', 'as', 'at', 'from', 'if', 'not', 'we', 'can'])

function norm(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1)
  return w
}

/** Appends the terms of `text` to `out` (repeats kept: they are term frequencies). */
export function addTerms(text: string, out: string[]): void {
  for (const m of text.matchAll(WORD)) {
    const word = m[0]
    const parts = word.split(SPLIT).filter((p) => p !== '')
    for (const p of parts) {
      const t = p.toLowerCase()
      if (STOP.has(t) || (t.length < 2 && !/[0-9]/.test(t))) continue
      out.push(norm(t))
    }
    if (parts.length > 1) out.push(parts.join('').toLowerCase())
  }
}

export function terms(text: string): string[] {
  const out: string[] = []
  addTerms(text, out)
  return out
}

/** The name as one word: `parse_http_response` and `parseHttpResponse` are both `parsehttpresponse`. */
export function squash(name: string): string {
  return name.replace(/[^A-Za-z0-9]/g, '').toLowerCase()
}
