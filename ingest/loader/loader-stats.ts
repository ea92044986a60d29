// What the loader counts, shared by its parts (pull, insert) without importing the loader.
export interface LoaderStats {
  batches: number
  rows: number
  messages: number
  duplicatesSkipped: number
  deadLettered: number
  insertErrors: number
  lastInsertMs: number
  /** Milliseconds spent in inserts, in all. */
  insertMs: number
  lastBatchRows: number
  fetchErrors: number
}
