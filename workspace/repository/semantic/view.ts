// view=semantic: definitions of the mirror at HEAD, parsed with tree-sitter and
// ranked against the query (rank.ts). The index of a commit is built on the
// first semantic read of it and kept for the next ones (a few commits, the
// newest first); a new commit after a refresh gets its own. Limits below keep
// a large repository's indexing bounded; what was left out is counted in the answer.
import { RequestInvalid, detail } from '../../../core/index.ts'
import { gitBlobs, git } from '../git.ts'
import { parseLsTree, requireHead, type ViewContext, type Window } from '../views.ts'
import { extractDefinitions, type Definition } from './extract.ts'
import { grammarOf, parserFor } from './grammars.ts'
import { buildRankIndex, hasTerms, rank, type RankIndex } from './rank.ts'

/** Files larger than this are not parsed (generated or vendored code, mostly). */
export const SEMANTIC_MAX_FILE_BYTES = 512 * 1024
/** At most this many source files of a commit are parsed, in path order. */
export const SEMANTIC_MAX_FILES = 20_000
/** Indexes kept in memory (per server process). */
const CACHED = 4
/** Blobs read per git process. */
const BATCH = 500

interface CommitIndex {
  rank: RankIndex
  files: number
  skipped: { too_large: number; over_file_limit: number; unparsed: number }
  languages: Record<string, number>
}

const cache = new Map<string, Promise<CommitIndex>>()

async function buildIndex(ctx: ViewContext, commit: string): Promise<CommitIndex> {
  const entries = parseLsTree(await git(['ls-tree', '-r', '-z', '-l', commit], { ...ctx, maxBuffer: 256 * 1024 * 1024 }))
  const sources = entries.filter((e) => e.type === 'file' && grammarOf(e.path) !== null).sort((a, b) => (a.path < b.path ? -1 : 1))
  const skipped = { too_large: 0, over_file_limit: Math.max(0, sources.length - SEMANTIC_MAX_FILES), unparsed: 0 }
  const wanted = sources.slice(0, SEMANTIC_MAX_FILES).filter((e) => {
    if ((e.size ?? 0) <= SEMANTIC_MAX_FILE_BYTES) return true
    skipped.too_large++
    return false
  })
  const defs: Definition[] = []
  const languages: Record<string, number> = {}
  const parsers = new Map<string, Awaited<ReturnType<typeof parserFor>>>()
  try {
    for (let i = 0; i < wanted.length; i += BATCH) {
      const batch = wanted.slice(i, i + BATCH)
      const blobs = await gitBlobs(batch.map((e) => e.oid), ctx)
      for (let j = 0; j < batch.length; j++) {
        const e = batch[j] as (typeof batch)[number]
        const bytes = blobs[j]
        const grammar = grammarOf(e.path) as string
        // A NUL byte: binary, not source.
        if (bytes == null || bytes.includes(0)) {
          skipped.unparsed++
          continue
        }
        let parser = parsers.get(grammar)
        if (parser === undefined) parsers.set(grammar, (parser = await parserFor(grammar)))
        const source = bytes.toString('utf8')
        const tree = parser.parse(source)
        if (tree === null) {
          skipped.unparsed++
          continue
        }
        try {
          for (const d of extractDefinitions(tree, source, e.path)) defs.push(d)
        } finally {
          tree.delete() // wasm memory is not collected by V8
        }
        languages[grammar] = (languages[grammar] ?? 0) + 1
      }
    }
  } finally {
    for (const p of parsers.values()) p.delete()
  }
  const files = Object.values(languages).reduce((a, b) => a + b, 0)
  return { rank: buildRankIndex(defs), files, skipped, languages }
}

function indexOf(ctx: ViewContext, commit: string): Promise<CommitIndex> {
  const key = `${ctx.gitDir}\0${commit}`
  let ix = cache.get(key)
  if (ix === undefined) {
    ix = buildIndex(ctx, commit)
    // A failed build is not kept: the next read tries again.
    ix.catch(() => cache.delete(key))
    cache.set(key, ix)
    while (cache.size > CACHED) cache.delete(cache.keys().next().value as string)
  } else {
    cache.delete(key)
    cache.set(key, ix)
  }
  return ix
}

function within(path: string): (d: Definition) => boolean {
  if (path === '') return () => true
  return (d) => d.path === path || d.path.startsWith(`${path}/`)
}

export async function semanticView(ctx: ViewContext, path: string, query: string, w: Window) {
  if (query.trim() === '') throw new RequestInvalid([detail(['query', 'query'], 'view=semantic needs a query', 'missing')])
  if (!hasTerms(query)) throw new RequestInvalid([detail(['query', 'query'], 'the query has no word to look for (letters or digits)', 'value_error', query)])
  const commit = await requireHead(ctx)
  const ix = await indexOf(ctx, commit)
  const ranked = rank(ix.rank, query, within(path))
  const page = ranked.slice(w.line - 1, w.line - 1 + w.limit)
  return {
    commit,
    path,
    query,
    results: page.map(({ def, score }) => ({
      path: def.path, line: def.line, end_line: def.end_line, kind: def.kind, name: def.name,
      signature: def.signature, doc: def.doc, score: Math.round(score * 1000) / 1000,
    })),
    total: ranked.length,
    next_line: w.line - 1 + w.limit < ranked.length ? w.line + w.limit : null,
    index: { files: ix.files, definitions: ix.rank.defs.length, languages: ix.languages, skipped_files: ix.skipped },
  }
}
