// Whether the managed nats-server fsyncs every JetStream write. nats-server
// 2.10 added `sync_interval` (`always`: fsync before the publish ack); older
// servers, such as Debian bookworm's 2.9.10, refuse the option as an unknown
// field and fsync on their fixed two-minute interval. The option is written
// only for a binary that reports a version that has it.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface NatsServerVersion {
  major: number
  minor: number
  patch: number
  /** A pre-release (`2.10.0-beta.1`) sorts before its release, as in semver. */
  prerelease: string
}

/** The first `vX.Y.Z[-pre]` in `nats-server --version` output (`nats-server: v2.9.10`). */
export function parseNatsServerVersion(output: string): NatsServerVersion | null {
  const m = /\bv?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?/.exec(output)
  if (m === null) return null
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), prerelease: m[4] ?? '' }
}

/** The first release with `sync_interval`. */
export const SYNC_INTERVAL_SINCE = { major: 2, minor: 10, patch: 0 } as const

export function hasSyncInterval(v: NatsServerVersion | null): boolean {
  if (v === null) return false // unknown: leave the option out, which every version accepts
  const a = [v.major, v.minor, v.patch]
  const b = [SYNC_INTERVAL_SINCE.major, SYNC_INTERVAL_SINCE.minor, SYNC_INTERVAL_SINCE.patch]
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) > (b[i] as number)
  return v.prerelease === ''
}

/** Lines for the `jetstream { }` block of the managed server's configuration. */
export function jetstreamSyncLines(v: NatsServerVersion | null): string[] {
  return hasSyncInterval(v) ? ['  sync_interval: always'] : []
}

/** Runs `<binary> --version`; null when it fails or prints no version. */
export async function detectNatsServerVersion(binary: string): Promise<NatsServerVersion | null> {
  try {
    const { stdout, stderr } = await run(binary, ['--version'], { timeout: 10_000 })
    return parseNatsServerVersion(`${stdout}\n${stderr}`)
  } catch {
    return null
  }
}

export function formatNatsServerVersion(v: NatsServerVersion): string {
  return `${v.major}.${v.minor}.${v.patch}${v.prerelease === '' ? '' : `-${v.prerelease}`}`
}
