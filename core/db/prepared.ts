// Names of prepared statements. node-postgres prepares a named statement once per
// connection and keeps it for the connection's life, and the server keeps its plan:
// so the names are bounded per process (the first MAX_NAMED distinct texts get one,
// later texts run unnamed), whatever combinations of filters clients send. A name is
// a digest of the text, so one name never stands for two texts.
import { createHash } from 'node:crypto'

const MAX_NAMED = 256
const names = new Map<string, string>()

export function statementName(text: string): string | undefined {
  const known = names.get(text)
  if (known !== undefined || names.size >= MAX_NAMED) return known
  const name = `lk_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`
  names.set(text, name)
  return name
}
