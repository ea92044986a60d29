// Where the PostgreSQL server binaries are: LOOKOUT_PG_BIN, else the newest
// Debian server package's (/usr/lib/postgresql/<major>/bin: 15 on bookworm,
// 17 on trixie), found by looking rather than guessing one version. Where the
// test command installed the package (LOOKOUT_TEST_REQUIRE_SERVERS=1, set by
// deploy/bootstrap.sh test), a missing server is an error, never a skip.
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { availableOrRequired } from './require-servers.ts'

const DEBIAN_ROOT = '/usr/lib/postgresql'

function findBin(): string | null {
  const given = process.env.LOOKOUT_PG_BIN
  if (given !== undefined && given !== '') return given
  let majors: number[] = []
  try {
    majors = readdirSync(DEBIAN_ROOT).map(Number).filter((n) => Number.isInteger(n)).sort((a, b) => b - a)
  } catch {
    return null
  }
  for (const m of majors) {
    const bin = join(DEBIAN_ROOT, String(m), 'bin')
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return bin
  }
  return null
}

const found = findBin()

/** The directory holding initdb and postgres ('' when there is none). */
export const PG_BIN = found ?? ''

/** Whether a PostgreSQL server can be started; throws where the test command was to install one. */
export function postgresAvailable(): boolean {
  const ok = found !== null && existsSync(join(found, 'initdb')) && existsSync(join(found, 'postgres'))
  return availableOrRequired(ok, `PostgreSQL server binaries (LOOKOUT_PG_BIN, ${DEBIAN_ROOT}/*/bin; Debian package postgresql)`)
}
