// A fresh PGlite directory costs an initdb in WebAssembly: 5–6 s on a 2-core
// machine, every first start and every test. Unpacking a (gzipped) tar of a cluster made
// the same way earlier costs about 1.5 s, so the first fresh directory keeps
// one (per PGlite version) and later ones start from it. Running every stage's
// migrations on it costs as much again (each table is files written through
// PGlite's file system), so a second template holds the migrated cluster, named
// by a digest of the migrations: a changed migration makes a new one. The tar lives in a
// directory only this user can write: whoever can plant it owns every
// database made from it. The file is a SHA-256 of the tar, then the tar:
// PGlite fails on a damaged tar outside the promise it returns (an unhandled
// rejection), so nothing damaged may reach it.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync, unlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PGlite } from '@electric-sql/pglite'

let pgliteVersion: string | null = null

/** The installed PGlite's version: its package.json is not exported, so it is found beside its entry point. */
function installedVersion(): string {
  if (pgliteVersion !== null) return pgliteVersion
  let dir = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')))
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === '@electric-sql/pglite' && typeof pkg.version === 'string') return (pgliteVersion = pkg.version)
    } catch {
      // not this level
    }
  }
  return (pgliteVersion = 'unknown')
}

/** `kind`: 'initdb', or `m-<digest>` for a cluster with those migrations applied. */
export function templatePath(templateDir: string, kind = 'initdb'): string {
  return join(templateDir, `pglite-${installedVersion()}-${kind}.tar.gz`)
}

/** Creates the directory if needed; true when it is this user's and no one else can write it. */
function privateDir(dir: string): boolean {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const st = statSync(dir)
  const uid = process.getuid?.()
  return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0
}

const DIGEST_BYTES = 32

function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest()
}

/** The template's tar, or null when there is none, it is damaged, or its directory is not private. */
export function readTemplate(templateDir: string, kind?: string): Uint8Array | null {
  let file: Buffer
  try {
    if (!privateDir(templateDir)) return null
    file = readFileSync(templatePath(templateDir, kind))
  } catch {
    return null
  }
  const tar = file.subarray(DIGEST_BYTES)
  if (file.byteLength <= DIGEST_BYTES || !sha256(tar).equals(file.subarray(0, DIGEST_BYTES))) return null
  return tar
}

/** Keeps a just-initialized cluster as the template; written whole (rename) so a reader never sees part of one. */
export async function saveTemplate(db: Pick<PGlite, 'dumpDataDir'>, templateDir: string, kind?: string): Promise<void> {
  if (!privateDir(templateDir)) return
  const tar = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer())
  const file = templatePath(templateDir, kind)
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, Buffer.concat([sha256(tar), tar]), { mode: 0o600 })
  renameSync(tmp, file)
}

export function dropTemplate(templateDir: string, kind?: string): void {
  try {
    unlinkSync(templatePath(templateDir, kind))
  } catch {
    // already gone
  }
}

/** Keeps the `keep` newest templates of this PGlite whose kind starts with `prefix` (each build's migrations leave one). */
export function pruneTemplates(templateDir: string, prefix: string, keep: number): void {
  const start = `pglite-${installedVersion()}-${prefix}`
  const files = readdirSync(templateDir).filter((f) => f.startsWith(start) && f.endsWith('.tar.gz'))
    .map((f) => ({ f, at: statSync(join(templateDir, f)).mtimeMs })).sort((a, b) => b.at - a.at)
  for (const { f } of files.slice(keep)) {
    try {
      unlinkSync(join(templateDir, f))
    } catch {
      // another process pruned it
    }
  }
}

/**
 * Unpacks a template's tar into an empty directory with the system's tar: about
 * 0.5 s of CPU for the ~45 MB of a migrated cluster, where PGlite's own unpacking
 * (one call through its WebAssembly file system per file) takes 2 s. Its entries
 * are absolute (`/PG_VERSION`): GNU tar makes them relative to `-C`. Throws when
 * tar is missing or fails; the caller then lets PGlite unpack it.
 */
export function unpackTemplate(tar: Uint8Array, dataDir: string): void {
  execFileSync('tar', ['-xz', '--no-same-owner', '-C', dataDir], { input: tar, stdio: ['pipe', 'ignore', 'pipe'], timeout: 60_000 })
}
