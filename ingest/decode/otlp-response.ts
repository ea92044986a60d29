// ExportLogsServiceResponse bodies: partial_success only when records were rejected.

/** Protobuf ExportLogsServiceResponse; zero bytes when nothing was rejected. */
export function encodeExportLogsResponse(rejected: number, errorMessage: string): Uint8Array {
  if (rejected === 0 && errorMessage === '') return new Uint8Array(0)
  const message = Buffer.from(errorMessage, 'utf8')
  // ExportLogsPartialSuccess: rejected_log_records (1, int64 varint), error_message (2, string).
  const inner: number[] = []
  if (rejected !== 0) {
    inner.push(0x08)
    pushVarint(inner, rejected)
  }
  if (message.length !== 0) {
    inner.push(0x12)
    pushVarint(inner, message.length)
  }
  const head: number[] = [0x0a]
  pushVarint(head, inner.length + message.length)
  const out = new Uint8Array(head.length + inner.length + message.length)
  out.set(head, 0)
  out.set(inner, head.length)
  out.set(message, head.length + inner.length)
  return out
}

/** Varint of a non-negative safe integer. */
function pushVarint(out: number[], n: number): void {
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80)
    n = Math.floor(n / 0x80)
  }
  out.push(n)
}

/** The same response in the protobuf JSON mapping (int64 as a decimal string). */
export function exportLogsResponseJson(rejected: number, errorMessage: string): object {
  if (rejected === 0 && errorMessage === '') return {}
  const partialSuccess: { rejectedLogRecords?: string, errorMessage?: string } = {}
  if (rejected !== 0) partialSuccess.rejectedLogRecords = String(rejected)
  if (errorMessage !== '') partialSuccess.errorMessage = errorMessage
  return { partialSuccess }
}
