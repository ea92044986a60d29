// Where the per-user desktop service keeps its socket and its data, and the
// permission checks that make the socket owner-only.
//
// Node cannot read a Unix socket peer's credentials (no SO_PEERCRED API), so
// the owner check is done by the file system: connect(2) on a Unix socket needs
// write permission on the socket file and search permission on each directory
// of its path. The socket is created 0600 inside a directory that is 0700 and
// owned by the user, so no other (non-root) user can connect: they get EACCES.
// A directory that exists but belongs to someone else (e.g. a squatter's
// /tmp/lookout-<uid>) is refused, never used.
import { chmodSync, lstatSync, mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { PrivateDirError } from './errors.ts'

export interface DesktopPaths {
  /** Private directory of the socket: $XDG_RUNTIME_DIR/lookout, else /tmp/lookout-<uid>. */
  runtimeDir: string
  socketPath: string
  /** $LOOKOUT_DATA_DIR, else $XDG_DATA_HOME/lookout, else ~/.local/share/lookout. */
  dataDir: string
}

function uid(): number {
  return process.getuid?.() ?? 0
}

export function desktopPaths(env: NodeJS.ProcessEnv = process.env): DesktopPaths {
  const xdgRuntime = env.XDG_RUNTIME_DIR ?? ''
  const runtimeDir = xdgRuntime !== '' ? join(xdgRuntime, 'lookout') : `/tmp/lookout-${uid()}`
  const xdgData = env.XDG_DATA_HOME ?? ''
  const dataDir = env.LOOKOUT_DATA_DIR !== undefined && env.LOOKOUT_DATA_DIR !== ''
    ? env.LOOKOUT_DATA_DIR
    : xdgData !== '' ? join(xdgData, 'lookout') : join(homedir(), '.local', 'share', 'lookout')
  return { runtimeDir, socketPath: join(runtimeDir, 'lookout.sock'), dataDir }
}

/** Checks that a directory is a real directory owned by this user and closed to everyone else. */
export function checkPrivateDir(dir: string): void {
  const st = lstatSync(dir)
  if (st.isSymbolicLink() || !st.isDirectory()) throw new PrivateDirError(`${dir} is not a directory`)
  if (st.uid !== uid()) throw new PrivateDirError(`${dir} belongs to uid ${st.uid}, not to this user (uid ${uid()}): remove it or set XDG_RUNTIME_DIR`)
  if ((st.mode & 0o077) !== 0) throw new PrivateDirError(`${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)}); it must be 0700`)
}

/** Creates the directory 0700 (or closes an existing one of ours to others), then checks it. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const st = lstatSync(dir)
  if (st.isDirectory() && !st.isSymbolicLink() && st.uid === uid() && (st.mode & 0o077) !== 0) chmodSync(dir, 0o700)
  checkPrivateDir(dir)
}
