// Definitions of one parsed file: functions, methods, classes, interfaces,
// types, enums, modules..., each with its name, kind, line, signature (its
// text up to the body), doc comment (the comments right above it, or a Python
// docstring) and the identifiers used inside it (not inside a nested
// definition, which has its own). One walk over the syntax tree.
import type { Node, Tree } from 'web-tree-sitter'

export interface Definition {
  path: string
  line: number
  end_line: number
  kind: string
  name: string
  signature: string
  doc: string
  identifiers: string[]
}

/** Syntax node type → kind, across the grammars of grammars.ts. */
const KINDS: Readonly<Record<string, string>> = {
  function_declaration: 'function', generator_function_declaration: 'function', function_definition: 'function',
  function_item: 'function', function_signature_item: 'function', function_signature: 'function',
  method_definition: 'method', method_declaration: 'method', method: 'method', singleton_method: 'method',
  method_signature: 'method', abstract_method_signature: 'method', constructor_declaration: 'method',
  class_declaration: 'class', abstract_class_declaration: 'class', class_definition: 'class', class: 'class', class_specifier: 'class',
  interface_declaration: 'interface', trait_item: 'trait', trait_declaration: 'trait',
  struct_item: 'struct', struct_specifier: 'struct', struct_declaration: 'struct', record_declaration: 'class',
  enum_declaration: 'enum', enum_item: 'enum', enum_specifier: 'enum',
  type_alias_declaration: 'type', type_item: 'type', type_spec: 'type',
  module: 'module', mod_item: 'module', namespace_definition: 'namespace', internal_module: 'namespace', namespace_declaration: 'namespace',
}
const CLASSY = new Set(['class', 'interface', 'trait', 'struct'])
const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function'])
/** Wrappers whose comment above documents the definition inside. */
const WRAPPERS = new Set(['export_statement', 'decorated_definition', 'ambient_declaration'])
const NAME_TYPES = new Set(['identifier', 'field_identifier', 'type_identifier', 'property_identifier', 'qualified_identifier', 'destructor_name', 'operator_name', 'constant', 'name'])
const MAX_SIGNATURE = 300
const MAX_DOC = 1000
const MAX_IDENTIFIERS = 300

/** Node types whose kind depends on their value (`const parse = (x) => ...` is a function). */
const BY_VALUE = new Set(['variable_declarator', 'pair', 'public_field_definition'])

function kindByValue(n: Node): string | null {
  const v = n.childForFieldName('value')
  return v !== null && FUNCTION_VALUES.has(v.type) ? 'function' : null
}

/** The name: the `name` field, else the identifier inside the declarator (C/C++). */
function nameOf(n: Node): string | null {
  const named = n.childForFieldName('name') ?? n.childForFieldName('key')
  if (named !== null) return named.text
  let d = n.childForFieldName('declarator')
  for (let depth = 0; d !== null && depth < 6; depth++) {
    if (NAME_TYPES.has(d.type)) return d.text
    d = d.childForFieldName('declarator') ?? d.namedChildren.find((c) => c !== null && NAME_TYPES.has(c.type)) ?? null
  }
  return null
}

const oneLine = (s: string, max: number) => s.replace(/\s+/g, ' ').trim().slice(0, max)

/** The definition's text up to its body (or its first line); node indexes are string offsets. */
function signatureOf(n: Node, source: string): string {
  const start = anchorOf(n).startIndex
  const body = n.childForFieldName('body')
  const end = body !== null && body.startIndex > start ? body.startIndex : source.indexOf('\n', n.startIndex)
  return oneLine(source.slice(start, end < 0 ? n.endIndex : Math.min(end, start + 4 * MAX_SIGNATURE)), MAX_SIGNATURE)
}

/** The statement a definition is written as: `export function f`, `export const f = ...`, a decorated definition. */
function anchorOf(n: Node): Node {
  let anchor = n
  while (anchor.parent !== null && (WRAPPERS.has(anchor.parent.type) || anchor.parent.type === 'lexical_declaration' || anchor.parent.type === 'variable_declaration')) anchor = anchor.parent
  return anchor
}

function stripComment(c: string): string {
  return c.replace(/^\/\*+|\*+\/$/g, '').split('\n').map((l) => l.replace(/^\s*(\/\/+!?|#+|\*+|--)\s?/, '')).join(' ')
}

function docOf(n: Node): string {
  const anchor = anchorOf(n)
  const parts: string[] = []
  let row = anchor.startPosition.row
  for (let c = anchor.previousNamedSibling; c !== null && c.type.includes('comment') && c.endPosition.row >= row - 1; c = c.previousNamedSibling) {
    parts.unshift(stripComment(c.text))
    row = c.startPosition.row
  }
  // A Python docstring: the body's first statement is a string.
  const first = n.childForFieldName('body')?.namedChild(0)
  if (first != null && first.type === 'expression_statement' && first.namedChild(0)?.type === 'string') parts.push(first.text.replace(/^[rbuf]*("""|'''|"|')|("""|'''|"|')$/gi, ''))
  return oneLine(parts.join(' '), MAX_DOC)
}

/**
 * Every definition of the tree, in source order. A cursor walk: only a
 * definition becomes a Node object (each costs a call into the wasm runtime).
 */
export function extractDefinitions(tree: Tree, source: string, path: string): Definition[] {
  const out: Definition[] = []
  const c = tree.walk()
  // The enclosing definition and whether we are in a class body, per open ancestor.
  const stack: (Definition | null)[] = []
  const classes: boolean[] = []
  let here: Definition | null = null
  let inClass = false
  try {
    for (;;) {
      const type = c.nodeType
      let childHere: Definition | null = here
      let childClass: boolean = inClass
      let kind: string | null = KINDS[type] ?? null
      if (kind === null && BY_VALUE.has(type)) kind = kindByValue(c.currentNode)
      if (kind !== null) {
        const n = c.currentNode
        const name = nameOf(n)
        if (name !== null && name !== '') {
          childHere = {
            path, line: n.startPosition.row + 1, end_line: n.endPosition.row + 1,
            kind: kind === 'function' && inClass ? 'method' : kind,
            name, signature: signatureOf(n, source), doc: docOf(n), identifiers: [],
          }
          out.push(childHere)
        }
        // A function's body is not a class body: a function nested there is a function.
        childClass = CLASSY.has(kind)
      }
      if (c.gotoFirstChild()) {
        stack.push(here)
        classes.push(inClass)
        here = childHere
        inClass = childClass
        continue
      }
      if (here !== null && type.includes('identifier') && here.identifiers.length < MAX_IDENTIFIERS) here.identifiers.push(c.nodeText)
      while (!c.gotoNextSibling()) {
        if (!c.gotoParent()) return out
        here = stack.pop() ?? null
        inClass = classes.pop() ?? false
      }
    }
  } finally {
    c.delete()
  }
}
