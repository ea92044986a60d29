// Driving `lookout mcp` from the tests: the official MCP client over stdio
// (every result's text and structured content compared, every project result
// validated against the tool's listed outputSchema with an Ajv of the test's
// own), and a bare run to its exit code.
import type { Test as Tap } from 'tap'
import { spawn } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { TOOL_ERROR_SCHEMA } from '../../../desktop/mcp/server.ts'

export interface ToolResult {
  isError: boolean
  body: any
}

export interface McpConnection {
  client: Client
  call(name: string, a?: Record<string, unknown>): Promise<ToolResult>
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv
const outputAjv = addFormats(new Ajv({ allErrors: true, strict: false }))
const validateError = outputAjv.compile(TOOL_ERROR_SCHEMA)
/** Tool name → the success branch of its outputSchema (the route's response), compiled. */
const successSchemas = new Map<string, ValidateFunction>()

function learn(tools: { name: string; outputSchema?: unknown }[]): void {
  for (const tool of tools) {
    // A success must be the route's response on its own, not merely "the response or an error".
    const branch = (tool.outputSchema as { anyOf?: object[] } | undefined)?.anyOf?.[0]
    if (branch !== undefined && !successSchemas.has(tool.name)) successSchemas.set(tool.name, outputAjv.compile(branch))
  }
}

/** Starts `lookout mcp ARGS` under the official client; the tool list is read at once (the client then validates outputs too). */
export async function connectMcp(tt: Tap, env: Record<string, string>, args: string[] = []): Promise<McpConnection> {
  const transport = new StdioClientTransport({
    command: process.execPath, args: ['deploy/lookout.ts', 'mcp', ...args], env, cwd: process.cwd(), stderr: 'pipe',
  })
  let stderr = ''
  // Read, so a chatty server never blocks on a full pipe; shown if the connection fails.
  transport.stderr?.on('data', (d) => (stderr += d))
  const client = new Client({ name: 'lookout-test', version: '1.0.0' })
  try {
    await client.connect(transport)
  } catch (err) {
    throw new Error(`lookout mcp ${args.join(' ')} did not start: ${(err as Error).message}\n${stderr}`)
  }
  learn((await client.listTools()).tools)
  return {
    client,
    async call(name, a = {}) {
      const r = await client.callTool({ name, arguments: a })
      // The text content and the structured content say the same thing.
      const text = (r.content as { type: string; text: string }[])[0]?.text ?? ''
      tt.same(JSON.parse(text), r.structuredContent, `${name}: text content mirrors the structured content`)
      // A success result matches the route's response schema; an error, the error envelope.
      const validate = successSchemas.get(name)
      if (validate !== undefined) {
        const check = r.isError === true ? validateError : validate
        tt.ok(check(r.structuredContent), `${name}: the result matches its outputSchema ${JSON.stringify(check.errors ?? [])}`)
      }
      return { isError: r.isError === true, body: r.structuredContent }
    },
  }
}

/** Runs `lookout mcp` to its end with stdin closed; its exit code and stderr. */
export function runMcp(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['deploy/lookout.ts', 'mcp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (d) => (stdout += d))
    p.stderr.on('data', (d) => (stderr += d))
    p.on('error', reject)
    // 'close': the exit code once both pipes are read to their end.
    p.on('close', (code) => resolve({ code, stderr, stdout }))
    p.stdin.end()
  })
}
