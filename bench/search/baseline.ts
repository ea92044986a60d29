// The raw baseline of a changed shape: the statements the route runs now, as they
// ran before the block-cache round (without `use_uncompressed_cache`), replayed
// interleaved with the route's requests so the ratio HTTP / raw shows the gain in
// the same run (bench/search README).
import { CACHED } from '../../query/internal.ts'

/** A statement as it ran before the cache: the cache setting taken out of its SETTINGS clause. */
export function withoutCache(sql: string): string {
  return sql.replace(` SETTINGS ${CACHED}, `, ' SETTINGS ').replace(` SETTINGS ${CACHED}`, '')
}
