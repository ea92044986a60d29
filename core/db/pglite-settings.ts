// PostgreSQL settings of the embedded database (PGlite), sized for a per-user service.
import { PGlite } from '@electric-sql/pglite'

/**
 * PGlite starts PostgreSQL with shared_buffers = 128 MB, allocated and touched
 * inside its WebAssembly memory at start: 130 MiB of resident memory before the
 * first query. Lookout's project database is megabytes, and its files sit in the
 * OS page cache anyway, so 16 MB of buffers hold it (measured in bench/memory).
 */
export const PGLITE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  '-c', 'shared_buffers=16MB',
  // A new 16 MB WAL segment is otherwise written full of zeros by the statement
  // that crosses into it: ~40 ms of the event loop once a minute under 50,000
  // checks (bench/monitor). Created sparse instead; PGlite runs with fsync off,
  // so zero-filling bought no durability here.
  '-c', 'wal_init_zero=off',
]
