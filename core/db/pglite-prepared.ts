// Named statements on PGlite. Its API plans every query anew; PostgreSQL's own
// PREPARE keeps a plan per text (bench/projects README, "Plans kept": a list page
// 765 → 537 µs of CPU). EXECUTE takes its arguments as SQL, so the values are
// written as literals here, under standard_conforming_strings (PostgreSQL's
// default), where a quote doubled is the only escape a string literal has.
import type { PGlite } from '@electric-sql/pglite'
import { statementName } from './prepared.ts'

type Runner = Pick<PGlite, 'query'>

/**
 * A value as an SQL literal, or undefined when it has no safe one here: a NUL
 * (the wire text would end at it) or a kind of value the page statements never
 * bind. Arrays become array literals of quoted elements.
 */
export function sqlLiteral(v: unknown): string | undefined {
  if (v === null || v === undefined) return 'NULL'
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined
  if (typeof v === 'bigint') return String(v)
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'string') return v.includes('\0') ? undefined : `'${v.replaceAll("'", "''")}'`
  if (Array.isArray(v)) {
    const items: string[] = []
    for (const e of v) {
      if (e === null || e === undefined) items.push('NULL')
      else if (typeof e === 'string' || typeof e === 'number' || typeof e === 'bigint') items.push(`"${String(e).replace(/["\\]/g, '\\$&')}"`)
      else return undefined
    }
    return sqlLiteral(`{${items.join(',')}}`)
  }
  return undefined
}

/** The EXECUTE text of a prepared statement with these values, or undefined when a value has no literal. */
export function executeText(name: string, params: readonly unknown[]): string | undefined {
  // Quoted: the names are digests in base64url, which has '-'.
  if (params.length === 0) return `EXECUTE "${name}"`
  const args: string[] = []
  for (const p of params) {
    const l = sqlLiteral(p)
    if (l === undefined) return undefined
    args.push(l)
  }
  return `EXECUTE "${name}"(${args.join(', ')})`
}

/**
 * One PGlite's prepared texts. A text is prepared on its first use outside a
 * transaction (inside one, a PREPARE that failed would abort the caller's work),
 * and runs as EXECUTE from then on, inside transactions too: a prepared
 * statement outlives the transaction it ran in.
 */
export class PreparedTexts {
  readonly #ready = new Set<string>()

  async run<T>(db: Runner, text: string, params: readonly unknown[], inTransaction: boolean): Promise<{ rows: T[]; affectedRows?: number } | undefined> {
    const name = statementName(text)
    if (name === undefined) return undefined
    const exec = executeText(name, params)
    if (exec === undefined) return undefined
    if (!this.#ready.has(name)) {
      if (inTransaction) return undefined
      await db.query(`PREPARE "${name}" AS ${text}`)
      this.#ready.add(name)
    }
    return db.query<T>(exec)
  }
}
