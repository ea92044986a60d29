// The tree-sitter grammars of the semantic view: web-tree-sitter (the wasm
// runtime) with the prebuilt grammar .wasm files of @vscode/tree-sitter-wasm,
// both from npm, nothing fetched at install or run time. Each grammar is
// loaded once, on the first file that needs it.
import { createRequire } from 'node:module'
import { Language, Parser } from 'web-tree-sitter'

const require = createRequire(import.meta.url)

/** File extension → grammar (the name of its .wasm file in @vscode/tree-sitter-wasm). */
export const GRAMMAR_OF: Readonly<Record<string, string>> = {
  ts: 'typescript', mts: 'typescript', cts: 'typescript', tsx: 'tsx',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  py: 'python', go: 'go', rs: 'rust', java: 'java', rb: 'ruby', cs: 'c-sharp', php: 'php',
  c: 'cpp', h: 'cpp', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp',
  sh: 'bash', bash: 'bash',
}

export function grammarOf(path: string): string | null {
  const dot = path.lastIndexOf('.')
  if (dot < 0 || dot < path.lastIndexOf('/')) return null
  return GRAMMAR_OF[path.slice(dot + 1).toLowerCase()] ?? null
}

let ready: Promise<void> | null = null
const languages = new Map<string, Promise<Language>>()

/** A parser for the grammar (the caller deletes it). */
export async function parserFor(grammar: string): Promise<Parser> {
  ready ??= Parser.init()
  await ready
  let lang = languages.get(grammar)
  if (lang === undefined) {
    lang = Language.load(require.resolve(`@vscode/tree-sitter-wasm/wasm/tree-sitter-${grammar}.wasm`))
    languages.set(grammar, lang)
  }
  const p = new Parser()
  p.setLanguage(await lang)
  return p
}
