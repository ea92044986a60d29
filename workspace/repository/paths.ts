// A repository path from a query: relative to the repository root, no `..`
// segment, no NUL. Paths are then looked up in git's object database, never on
// a file system, so a symbolic link in the repository is data (its target
// text), not a way out.
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'

export function repoPath(raw: string): string {
  const bad = (msg: string) => new RequestInvalid([detail(['query', 'path'], msg, 'value_error', raw)])
  if (raw.includes('\0')) throw bad('path must not contain NUL')
  if (raw.startsWith('/')) throw bad('path is relative to the repository root (no leading /)')
  const parts = raw.split('/').filter((s) => s !== '' && s !== '.')
  if (parts.includes('..')) throw bad('path must not contain a .. segment')
  return parts.join('/')
}
