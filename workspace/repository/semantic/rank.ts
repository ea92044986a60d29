// Ranking of the semantic view: BM25F over the definitions of a commit. Each
// definition is one document whose fields weigh differently: its name most,
// then its signature, its doc comment, its path, and the identifiers it uses.
// A query term counts by its weighted frequency; a name equal to the whole
// query (as one word) is boosted. No network model: words, not embeddings.
import type { Definition } from './extract.ts'
import { addTerms, squash, terms } from './terms.ts'

const K1 = 1.2
const B = 0.75
const WEIGHTS = { name: 4, signature: 1.5, doc: 1, path: 0.5, identifiers: 0.3 } as const
const EXACT_NAME_BOOST = 1.5

export interface RankIndex {
  defs: Definition[]
  /** term → [definition index, weighted term frequency] pairs, flattened. */
  postings: Map<string, number[]>
  lengths: Float64Array
  avgLength: number
  squashed: string[]
}

export function buildRankIndex(defs: Definition[]): RankIndex {
  const postings = new Map<string, number[]>()
  const lengths = new Float64Array(defs.length)
  const tf = new Map<string, number>()
  const scratch: string[] = []
  let total = 0
  for (let i = 0; i < defs.length; i++) {
    const d = defs[i] as Definition
    tf.clear()
    let len = 0
    const field = (text: string, w: number) => {
      scratch.length = 0
      addTerms(text, scratch)
      for (const t of scratch) tf.set(t, (tf.get(t) ?? 0) + w)
      len += scratch.length * w
    }
    field(d.name, WEIGHTS.name)
    field(d.signature, WEIGHTS.signature)
    field(d.doc, WEIGHTS.doc)
    field(d.path, WEIGHTS.path)
    field(d.identifiers.join(' '), WEIGHTS.identifiers)
    for (const [t, f] of tf) {
      let p = postings.get(t)
      if (p === undefined) postings.set(t, (p = []))
      p.push(i, f)
    }
    lengths[i] = len
    total += len
  }
  return { defs, postings, lengths, avgLength: defs.length === 0 ? 0 : total / defs.length, squashed: defs.map((d) => squash(d.name)) }
}

export interface Ranked {
  def: Definition
  score: number
}

/** Definitions matching the query, best first (ties: path, then line). */
export function rank(ix: RankIndex, query: string, within: (d: Definition) => boolean): Ranked[] {
  const qTerms = [...new Set(terms(query))]
  const n = ix.defs.length
  const scores = new Map<number, number>()
  for (const t of qTerms) {
    const p = ix.postings.get(t)
    if (p === undefined) continue
    const df = p.length / 2
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
    for (let j = 0; j < p.length; j += 2) {
      const i = p[j] as number
      const f = p[j + 1] as number
      const norm = f + K1 * (1 - B + B * ((ix.lengths[i] as number) / (ix.avgLength || 1)))
      scores.set(i, (scores.get(i) ?? 0) + idf * (f * (K1 + 1)) / norm)
    }
  }
  const whole = squash(query)
  const out: Ranked[] = []
  for (const [i, s] of scores) {
    const def = ix.defs[i] as Definition
    if (!within(def)) continue
    out.push({ def, score: ix.squashed[i] === whole ? s * EXACT_NAME_BOOST : s })
  }
  out.sort((a, b) => b.score - a.score || (a.def.path < b.def.path ? -1 : a.def.path > b.def.path ? 1 : a.def.line - b.def.line))
  return out
}

/** Whether the query has any word to look for. */
export function hasTerms(query: string): boolean {
  return terms(query).length > 0
}
