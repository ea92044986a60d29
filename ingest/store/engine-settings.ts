// Server settings of the embedded engine (chdb), sized for a per-user service.
// ClickHouse sizes its caches for a dedicated server (5 GiB mark, index-mark and
// primary-index caches, 90 % of RAM as the memory ceiling); in a process that
// also serves HTTP, decodes and runs PostgreSQL, a filled cache is memory the
// rest never gets back. The engine reads these at start only (connection args).
import { InvalidOptionError } from '../../core/index.ts'

const MiB = 1024 * 1024

/** Cache sizes in bytes; a cache fills only with what queries read, so these bound the peak, not idle memory. */
export const EMBEDDED_ENGINE_SETTINGS = {
  mark_cache_size: 64 * MiB,
  index_mark_cache_size: 16 * MiB,
  primary_index_cache_size: 32 * MiB,
  query_condition_cache_size: 16 * MiB,
  compiled_expression_cache_size: 16 * MiB,
  // The message search's text index (schema.ts): postings are what a search reads most.
  text_index_postings_cache_size: 64 * MiB,
  text_index_tokens_cache_size: 16 * MiB,
  text_index_header_cache_size: 16 * MiB,
  // Decompressed blocks, used only by statements that ask (log search, context, facets:
  // query/sql.ts): a search page decompresses a whole block for each of its few rows,
  // and the next refresh reads the same newest blocks again (query/README.md, "Block cache").
  uncompressed_cache_size: 128 * MiB,
  vector_similarity_index_cache_size: 0,
  parquet_metadata_cache_size: 0,
  iceberg_metadata_files_cache_size: 0,
} as const satisfies Record<string, number>

export interface EngineMemoryOptions {
  /** max_server_memory_usage: past it the engine refuses a query or insert (the loader retries). 0: the engine's default. */
  maxMemoryBytes?: number
}

/** The connection arguments (`--name=value`) that apply the embedded settings. */
export function engineArgs(options: EngineMemoryOptions = {}): string[] {
  const max = options.maxMemoryBytes ?? 0
  if (!Number.isInteger(max) || max < 0) throw new InvalidOptionError('maxMemoryBytes', 'must be an integer >= 0')
  const settings: Record<string, number> = { ...EMBEDDED_ENGINE_SETTINGS }
  if (max > 0) settings.max_server_memory_usage = max
  return Object.entries(settings).map(([k, v]) => `--${k}=${v}`)
}
