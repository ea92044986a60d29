// Read views over a mirror, all from git's object database at one resolved
// commit: status, tree (a directory's entries), file (a window of lines) and
// search (git grep, fixed strings, case-insensitive). Windows start at `line`
// (1-based: entry, line or match number) and hold at most `limit` items.
import type { ChildProcess } from 'node:child_process'
import { NotFoundError } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'
import { git, GitError, gitStream } from './git.ts'

export interface ViewContext {
  home: string
  gitDir: string
}

export interface Window {
  line: number
  limit: number
}

const MAX_FILE_BYTES = 10 * 1024 * 1024
const MAX_LINE_CHARS = 4000
const MAX_MATCH_CHARS = 1000
const BINARY_SNIFF_BYTES = 8000

type EntryType = 'file' | 'directory' | 'symlink' | 'submodule'

export interface Entry {
  mode: string
  type: EntryType
  oid: string
  size: number | null
  path: string
}

function entryType(mode: string, objType: string): EntryType {
  if (objType === 'tree') return 'directory'
  if (objType === 'commit') return 'submodule'
  return mode === '120000' ? 'symlink' : 'file'
}

/** `git ls-tree -z -l` records: "<mode> <type> <oid> <size>\t<path>\0". */
export function parseLsTree(out: Buffer): Entry[] {
  const entries: Entry[] = []
  for (const rec of out.toString('utf8').split('\0')) {
    if (rec === '') continue
    const tab = rec.indexOf('\t')
    const [mode, objType, oid, size] = rec.slice(0, tab).split(/\s+/) as [string, string, string, string]
    entries.push({ mode, type: entryType(mode, objType), oid, size: size === '-' ? null : Number(size), path: rec.slice(tab + 1) })
  }
  return entries
}

/** The commit HEAD names, or null for a repository without commits. */
export async function headCommit(ctx: ViewContext): Promise<string | null> {
  try {
    return (await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], ctx)).toString('utf8').trim() || null
  } catch (err) {
    if (err instanceof GitError) return null
    throw err
  }
}

export async function requireHead(ctx: ViewContext): Promise<string> {
  const c = await headCommit(ctx)
  if (c === null) throw new NotFoundError('commit (the repository has no commits yet)')
  return c
}

/** The tree entry at `path` in `commit`; null when there is none. */
async function entryAt(ctx: ViewContext, commit: string, path: string): Promise<Entry | null> {
  const out = await git(['ls-tree', '-z', '-l', commit, '--', path], ctx)
  return parseLsTree(out).find((e) => e.path === path) ?? null
}

export async function statusView(ctx: ViewContext) {
  const commit = await headCommit(ctx)
  let branch: string | null = null
  try {
    branch = (await git(['symbolic-ref', '--short', '-q', 'HEAD'], ctx)).toString('utf8').trim() || null
  } catch {
    branch = null
  }
  if (commit === null) return { branch, head: null }
  const [sha, subject, author, authoredAt, committedAt] = (await git(['log', '-1', '--format=%H%x00%s%x00%an%x00%aI%x00%cI', commit], ctx))
    .toString('utf8').trim().split('\0')
  return { branch, head: { commit: sha, subject, author, authored_at: authoredAt, committed_at: committedAt } }
}

export async function treeView(ctx: ViewContext, path: string, w: Window) {
  const commit = await requireHead(ctx)
  let treeish = commit
  if (path !== '') {
    const e = await entryAt(ctx, commit, path)
    if (e === null) throw new NotFoundError(`path ${path}`)
    if (e.type !== 'directory') {
      throw new RequestInvalid([detail(['query', 'path'], `${path} is a ${e.type}, not a directory: use view=file`, 'value_error', path)])
    }
    treeish = e.oid
  }
  const all = parseLsTree(await git(['ls-tree', '-z', '-l', treeish], ctx))
  const slice = all.slice(w.line - 1, w.line - 1 + w.limit)
  return {
    commit,
    path,
    entries: slice.map((e) => ({ name: e.path, path: path === '' ? e.path : `${path}/${e.path}`, type: e.type, size: e.type === 'file' ? e.size : null })),
    total: all.length,
    next_line: w.line - 1 + w.limit < all.length ? w.line + w.limit : null,
  }
}

export async function fileView(ctx: ViewContext, path: string, w: Window) {
  const commit = await requireHead(ctx)
  if (path === '') throw new RequestInvalid([detail(['query', 'path'], 'view=file needs the path of a file', 'missing')])
  const e = await entryAt(ctx, commit, path)
  if (e === null) throw new NotFoundError(`path ${path}`)
  const base = { commit, path, type: e.type, size: e.size }
  if (e.type === 'directory') throw new RequestInvalid([detail(['query', 'path'], `${path} is a directory: use view=tree`, 'value_error', path)])
  if (e.type === 'submodule') return { ...base, submodule_commit: e.oid, lines: [], total_lines: 0, next_line: null }
  if (e.type === 'symlink') {
    // The link's target is repository data; it is never followed.
    const target = (await git(['cat-file', 'blob', e.oid], ctx)).toString('utf8')
    return { ...base, target, lines: [], total_lines: 0, next_line: null }
  }
  if ((e.size ?? 0) > MAX_FILE_BYTES) return { ...base, too_large: true, binary: null, lines: [], total_lines: null, next_line: null }
  const bytes = await git(['cat-file', 'blob', e.oid], { ...ctx, maxBuffer: MAX_FILE_BYTES + 1024 })
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { ...base, binary: true, lines: [], total_lines: null, next_line: null }
  const text = bytes.toString('utf8')
  const all = text.split('\n')
  if (all.length > 0 && all[all.length - 1] === '') all.pop()
  const lines = all.slice(w.line - 1, w.line - 1 + w.limit).map((t, i) => {
    const line = t.endsWith('\r') ? t.slice(0, -1) : t
    return line.length > MAX_LINE_CHARS
      ? { number: w.line + i, text: line.slice(0, MAX_LINE_CHARS), truncated: true }
      : { number: w.line + i, text: line }
  })
  return { ...base, binary: false, lines, total_lines: all.length, next_line: w.line - 1 + w.limit < all.length ? w.line + w.limit : null }
}

interface Match {
  path: string
  line: number
  text: string
}

/**
 * Reads `git grep -z -n` records ("<rev>:<path>\0<n>\0<text>\n"), skips the first
 * `skip` matches, keeps the next `keep`, then stops git.
 */
function collectMatches(child: ChildProcess, rev: string, skip: number, keep: number): Promise<{ matches: Match[]; more: boolean }> {
  return new Promise((resolve, reject) => {
    const matches: Match[] = []
    let skipped = 0
    const prefix = `${rev}:`
    let buf: Buffer = Buffer.alloc(0)
    let more = false
    let stderr = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      if (more) return
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk])
      for (;;) {
        const a = buf.indexOf(0)
        const b = a < 0 ? -1 : buf.indexOf(0, a + 1)
        const nl = b < 0 ? -1 : buf.indexOf(10, b + 1)
        if (nl < 0) break
        if (matches.length === keep) {
          more = true
          child.kill('SIGKILL')
          break
        }
        if (skipped < skip) {
          skipped++
          buf = buf.subarray(nl + 1)
          continue
        }
        let path = buf.subarray(0, a).toString('utf8')
        if (path.startsWith(prefix)) path = path.slice(prefix.length)
        const text = buf.subarray(b + 1, nl).toString('utf8')
        matches.push({ path, line: Number(buf.subarray(a + 1, b).toString('latin1')), text: text.length > MAX_MATCH_CHARS ? text.slice(0, MAX_MATCH_CHARS) : text })
        buf = buf.subarray(nl + 1)
      }
    })
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-2000)
    })
    child.once('error', reject)
    child.once('close', (code) => {
      // 0: matches, 1: none; a kill means enough were read.
      if (more || code === 0 || code === 1) resolve({ matches, more })
      else reject(new GitError(stderr.trim().split('\n').pop() || `git grep exited with ${String(code)}`, code, stderr))
    })
  })
}

export async function searchView(ctx: ViewContext, path: string, query: string, w: Window) {
  if (query === '') throw new RequestInvalid([detail(['query', 'query'], 'view=search needs a query', 'missing')])
  const commit = await requireHead(ctx)
  const args = ['grep', '-z', '-n', '-I', '-i', '-F', '--no-color', '-e', query, commit]
  if (path !== '') args.push('--', path)
  const child = gitStream(args, ctx)
  const { matches, more } = await collectMatches(child, commit, w.line - 1, w.limit)
  return {
    commit,
    path,
    query,
    matches,
    next_line: more ? w.line + w.limit : null,
  }
}
