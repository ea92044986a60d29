// `lookout mcp`: the stdio tool server. It is a client of the running desktop
// service's owner socket; it refuses to start (exit 69) when nothing answers
// there, and never opens the data directory itself.
import { parseArgs } from 'node:util'
import { desktopPaths, checkPrivateDir } from '../paths.ts'
import { ServiceClient } from './client.ts'
import { ServiceUnreachable } from '../errors.ts'
import { MCP_EXIT } from './errors.ts'
import { McpServer } from './server.ts'
import { serveStdio } from './stdio.ts'
import { dirname } from 'node:path'

const USAGE = 'lookout mcp [--read-only | --grant GRANT_ID] [--socket PATH]'
const VERSION = '0.1.0'

function fail(message: string, code: number): number {
  process.stderr.write(`lookout mcp: ${message}\n`)
  return code
}

export async function mcpCommand(args: string[]): Promise<number> {
  let values: { 'read-only'?: boolean; grant?: string; socket?: string }
  try {
    values = parseArgs({ args, options: { 'read-only': { type: 'boolean' }, grant: { type: 'string' }, socket: { type: 'string' } } }).values
  } catch (err) {
    return fail(`${(err as Error).message}\nusage: ${USAGE}`, MCP_EXIT.usage)
  }
  if (values['read-only'] === true && values.grant !== undefined) {
    return fail(`--read-only and --grant cannot be used together (a grant's own scopes decide what it may change)\nusage: ${USAGE}`, MCP_EXIT.usage)
  }
  const socketPath = values.socket ?? desktopPaths().socketPath
  try {
    // Talk only to a socket in a directory that is ours and closed to others: anything else may not be our service.
    checkPrivateDir(dirname(socketPath))
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT'
    return fail(missing ? notRunning(socketPath) : (err as Error).message, MCP_EXIT.serviceNotRunning)
  }
  const client = new ServiceClient(socketPath, values.grant ?? null)
  try {
    let me
    try {
      me = await client.request('GET', '/v1/me')
    } catch (err) {
      if (err instanceof ServiceUnreachable) return fail(notRunning(socketPath), MCP_EXIT.serviceNotRunning)
      throw err
    }
    const body = me.body as { owner?: boolean; workspace?: { id?: string }; credential?: { scopes?: string[] }; error?: { message?: string } }
    if (me.status !== 200 || typeof body.workspace?.id !== 'string') {
      const why = body.error?.message ?? `status ${me.status}`
      return values.grant !== undefined
        ? fail(`grant ${values.grant} cannot be used: ${why} (unknown, revoked, or not an access grant)`, MCP_EXIT.grantRefused)
        : fail(`the desktop service refused the owner: ${why}`, 1)
    }
    const server = new McpServer({
      client,
      context: { workspaceId: body.workspace.id },
      version: VERSION,
      readOnly: values['read-only'] === true,
      scopes: values.grant === undefined ? null : new Set(body.credential?.scopes ?? []),
    })
    await serveStdio(server, process.stdin, process.stdout)
    return MCP_EXIT.ok
  } finally {
    await client.close()
  }
}

function notRunning(socketPath: string): string {
  return `the Lookout desktop service is not running (nothing answers on ${socketPath}); start it with \`lookout desktop\``
}
