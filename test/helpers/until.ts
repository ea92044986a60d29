// Waits on a condition rather than a fixed sleep: polls `read` until `ok`
// holds, or fails naming what it waited for and the last value it read.
export async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await read()
    if (ok(v)) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(v)?.slice(0, 600)}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}
