// A record its sender gave no id (OTLP, the JSON batch route) is stored under one
// the row writer derives: the request's base id (24 hex digits, decode/identity.ts),
// which the row's batch id starts with too, then the record's place in the request
// (8 hex digits). A sender's own id (the legacy route) cannot start with that base:
// the base is a hash of the body that holds the id.

/** Hex digits of a request's base id: a derived event id's first part and its batch id's. */
export const BASE_DIGITS = 24

/** Whether `eventId` is one the writer derived for a row of batch `batchId`. */
export function isDerivedEventId(eventId: string, batchId: string): boolean {
  if (eventId.length !== BASE_DIGITS + 8 || batchId.length < BASE_DIGITS) return false
  // Compared in place: this runs for every row a search returns.
  for (let i = 0; i < BASE_DIGITS; i++) if (eventId.charCodeAt(i) !== batchId.charCodeAt(i)) return false
  return true
}
