// Newline-delimited JSON-RPC on stdio: one message per line in, one response
// per line out (stdout carries nothing else). Requests run concurrently;
// each response is written whole when it is ready.
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { RPC, type McpServer } from './server.ts'

export async function serveStdio(server: McpServer, input: Readable, output: Writable): Promise<void> {
  const pending = new Set<Promise<void>>()
  const send = (msg: unknown): void => {
    output.write(JSON.stringify(msg) + '\n')
  }
  const lines = createInterface({ input, crlfDelay: Infinity })
  for await (const line of lines) {
    if (line.trim() === '') continue
    let message: unknown
    try {
      message = JSON.parse(line)
    } catch {
      send({ jsonrpc: '2.0', id: null, error: { code: RPC.parse, message: 'Parse error: each line must be one JSON-RPC message' } })
      continue
    }
    const work = server.handle(message).then((res) => {
      if (res !== null) send(res)
    }, (err: unknown) => {
      process.stderr.write(`lookout mcp: ${(err as Error).message}\n`)
    })
    pending.add(work)
    void work.finally(() => pending.delete(work))
  }
  // The client closed stdin: finish what was asked, then stop.
  await Promise.all([...pending])
}
