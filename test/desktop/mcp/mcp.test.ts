// The stdio tool server (`lookout mcp`) driven by the official MCP client
// (@modelcontextprotocol/sdk) over stdio, against a real desktop service
// (`lookout desktop`, a child process, stopped with SIGTERM at the end):
// every tool listed and called as the owner, --read-only refusing writes,
// --grant applying the stored grant's scopes (at the service, not only in the
// listing), the start-up refusals (both flags, no service, a revoked grant)
// and the raw JSON-RPC framing.
import t, { type Test as Tap } from 'tap'
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startDesktopProcess, type DesktopProcess } from '../desktop-helpers.ts'
import { connectMcp, runMcp as runMcpWith, type McpConnection } from './mcp-helpers.ts'

// The service as the user runs it: `lookout desktop` in a child process.
let td: DesktopProcess = await startDesktopProcess()
t.teardown(() => td.stop())
const { owner, workspaceId } = td
const rid = await td.resource('mcp-web')
const otherRid = await td.resource('mcp-db')
const env = td.env as Record<string, string>

const EXPECTED_TOOLS = [
  'workspace_list', 'resource_list',
  'project_list', 'project_get', 'project_create', 'project_update', 'project_action', 'project_move', 'project_delete',
  'project_comments', 'project_comment_create', 'project_boards', 'project_statuses', 'project_taxonomy',
  'project_taxonomy_write', 'project_history', 'project_assignees',
  'logs_query', 'notifications_read', 'monitoring_query', 'service_health',
]
const WRITE_TOOLS = ['project_create', 'project_update', 'project_action', 'project_move', 'project_delete', 'project_comment_create', 'project_taxonomy_write']

const connect = (tt: Tap, args: string[] = []): Promise<McpConnection> => connectMcp(tt, env, args)
const runMcp = (args: string[], withEnv: Record<string, string> = env) => runMcpWith(args, withEnv)

// Some logs to query: two events on the granted resource, one on the other.
// (Checked by throwing: top-level assertions between awaits would end the file's test early.)
async function seedLogs(): Promise<void> {
  const now = Date.now()
  const post = async (r: string, events: unknown[]) => {
    const res = await owner('POST', `/v1/workspaces/${workspaceId}/resources/${r}/logs`, { events })
    if (res.status !== 200) throw new Error(`logs: ${res.status} ${JSON.stringify(res.body)}`)
  }
  await post(rid, [
    { message: 'mcp first line', severity: 'info', timestamp: new Date(now - 2000).toISOString() },
    { message: 'mcp second line', severity: 'error', timestamp: new Date(now - 1000).toISOString() },
  ])
  await post(otherRid, [{ message: 'other resource', timestamp: new Date(now).toISOString() }])
  const deadline = Date.now() + 60_000
  for (;;) {
    const a = await owner('GET', `/v1/logs?resource_id=${rid}`)
    const b = await owner('GET', `/v1/logs?resource_id=${otherRid}`)
    if (a.body?.events?.length === 2 && b.body?.events?.length === 1) return
    if (Date.now() > deadline) throw new Error('the seeded logs never became searchable')
    await new Promise((r) => setTimeout(r, 100))
  }
}
await seedLogs()

let agentTaskId = ''

t.test('the owner (default): every tool listed with a JSON Schema, and every tool called', async (t) => {
  const { client, call } = await connect(t)
  t.teardown(() => client.close())
  t.match(client.getServerVersion(), { name: 'lookout' })
  t.ok(client.getServerCapabilities()?.tools, 'advertises tools')
  t.same(await client.ping(), {}, 'ping')

  const { tools } = await client.listTools()
  t.same(tools.map((x) => x.name).sort(), [...EXPECTED_TOOLS].sort(), 'the whole catalogue')
  t.equal(tools.filter((x) => x.name.startsWith('project_')).length, 15, '15 project_* tools')
  for (const tool of tools) {
    t.equal(tool.inputSchema.type, 'object', `${tool.name}: an object schema`)
    t.ok(typeof tool.description === 'string' && tool.description.length > 20, `${tool.name}: described`)
    t.equal(tool.annotations?.readOnlyHint, !WRITE_TOOLS.includes(tool.name), `${tool.name}: readOnlyHint`)
    t.notOk(JSON.stringify(tool.inputSchema).includes('"nullable"'), `${tool.name}: plain JSON Schema`)
  }
  const notif = tools.find((x) => x.name === 'notifications_read')
  t.match(notif?.inputSchema.properties, {
    query: { type: 'string' }, notification_id: { format: 'uuid' }, filter: { enum: ['all', 'unread', 'archived'] },
    page: { type: 'integer', minimum: 1, default: 1 }, limit: { maximum: 50, default: 20 },
  })

  const ws = await call('workspace_list')
  t.notOk(ws.isError)
  t.ok(ws.body.items.some((w: { id: string }) => w.id === workspaceId), 'workspace_list: the local workspace')
  const res = await call('resource_list')
  t.same(res.body.items.map((r: { id: string }) => r.id).sort(), [rid, otherRid].sort(), 'resource_list')

  t.same(tools.filter((x) => x.outputSchema !== undefined).map((x) => x.name).sort(), tools.filter((x) => x.name.startsWith('project_')).map((x) => x.name).sort(),
    'the project tools list an outputSchema (the others are unchanged)')

  const P = `/v1/workspaces/${workspaceId}`
  const boards = await call('project_boards')
  const board = boards.body.items.find((b: { is_default: boolean }) => b.is_default)
  t.ok(board, 'project_boards: the default board')
  const statuses = await call('project_statuses', { board_id: board.id })
  t.equal(statuses.body.board_id, board.id)
  const doing = statuses.body.items.find((s: { category: string }) => s.category === 'doing')
  t.ok(doing, 'project_statuses: a doing status')

  const tax = await call('project_taxonomy')
  t.notOk(tax.isError)
  const labelled = await call('project_taxonomy_write', { kind: 'label', operation: 'create', name: 'from-agent', revision: tax.body.revision })
  t.notOk(labelled.isError, 'project_taxonomy_write (TaxonomyConfigure)')
  const label = labelled.body.labels.find((l: { name: string }) => l.name === 'from-agent')
  t.ok(label, 'the new label')
  const staleTax = await call('project_taxonomy_write', { kind: 'label', operation: 'create', name: 'late', revision: tax.body.revision })
  t.match(staleTax, { isError: true, body: { error: { status: 409, code: String } } }, 'a stale catalogue revision is a 409 tool error')
  const localOnly = await call('project_taxonomy_write', {
    kind: 'label', operation: 'create', name: 'x', revision: labelled.body.revision, idempotency_key: crypto.randomUUID(),
  })
  t.match(localOnly, { isError: true, body: { error: { code: 'LOOKOUT_VALIDATION', status: 400 } } }, 'the local idempotency_key is not TaxonomyConfigure\'s')

  const key = crypto.randomUUID()
  const created = await call('project_create', { title: 'written by an agent', label_ids: [label.id], idempotency_key: key })
  t.notOk(created.isError, 'project_create (TaskCreate)')
  const task = created.body
  agentTaskId = task.id
  t.match(task, { item_type: 'task', title: 'written by an agent', label_ids: [label.id], revision: 1, priority: 'normal' })
  t.type(task.number, 'number', 'a local task has a number')
  const replay = await call('project_create', { title: 'written by an agent', label_ids: [label.id], idempotency_key: key })
  t.same(replay.body, task, 'the same idempotency key returns the same task')
  const conflict = await call('project_create', { title: 'something else', idempotency_key: key })
  t.match(conflict, { isError: true, body: { error: { status: 409 } } }, 'the same key with other content: 409')
  t.match(await call('project_create', { item_type: 'note', body: 'a note', idempotency_key: crypto.randomUUID() }),
    { isError: true, body: { error: { code: 'LOOKOUT_VALIDATION', status: 400 } } }, 'TaskCreate has no item_type: the local schema is gone')
  t.match(await call('project_create', { title: 'x'.repeat(161), idempotency_key: crypto.randomUUID() }),
    { isError: true, body: { error: { code: 'LOOKOUT_VALIDATION' } } }, 'TaskCreate title max 160')

  t.match((await call('project_get', { item_id: task.id })).body, { id: task.id, revision: 1 }, 'project_get')
  const updated = await call('project_update', { item_id: task.id, revision: 1, status_id: doing.id, priority: 'high', assignee: 7 })
  t.match(updated, { isError: false, body: { status_id: doing.id, priority: 'high', assignee: 7, revision: 2 } }, 'project_update (TaskUpdate)')
  const stale = await call('project_update', { item_id: task.id, revision: 1, title: 'lost' })
  t.match(stale, { isError: true, body: { error: { code: 'LOOKOUT_PROJECT_STALE_REVISION', status: 409, message: /revision/ } } },
    'a stale revision: an isError result with code, message and status')
  const missing = await call('project_get', { item_id: '00000000-0000-4000-8000-000000000000' })
  t.match(missing, { isError: true, body: { error: { status: 404, code: String, message: String } } }, 'a missing task: 404')
  const invalid = await call('project_get', { item_id: 'not-a-uuid' })
  t.match(invalid, { isError: true, body: { error: { code: 'LOOKOUT_VALIDATION', status: 400 } } }, 'arguments are checked against the schema')
  const extra = await call('project_list', { shell: 'rm -rf /' })
  t.match(extra, { isError: true, body: { error: { code: 'LOOKOUT_VALIDATION', status: 400 } } }, 'unknown arguments are refused')
  t.match(await call('project_list', { limit: 101 }), { isError: true, body: { error: { code: 'LOOKOUT_VALIDATION' } } }, 'filter set: limit max 100')

  const listed = await call('project_list', { label_ids: [label.id] })
  t.same(listed.body.items.map((i: { id: string }) => i.id), [task.id], 'project_list with a label filter (an array, as the filter set has it)')
  t.same((await call('project_list', { status_id: doing.id, limit: 100 })).body.items.map((i: { id: string }) => i.id), [task.id], 'a status filter')

  const commented = await call('project_comment_create', { item_id: task.id, body: 'looking into it', idempotency_key: crypto.randomUUID() })
  t.match(commented, { isError: false, body: { item_id: task.id, body: 'looking into it' } }, 'project_comment_create (CommentCreate)')
  const comments = await call('project_comments', { item_id: task.id })
  t.same(comments.body.items.map((c: { body: string }) => c.body), ['looking into it'], 'project_comments')

  const history = await call('project_history', { board_id: board.id })
  const mine = history.body.items.filter((e: { item_id: string | null }) => e.item_id === task.id).map((e: { action: string }) => e.action)
  t.ok(mine.includes('create') && mine.includes('update'), `project_history: the task's create and update (${mine.join(', ')})`)
  t.match((await call('project_assignees')).body.items, [{ user_id: 7, id: 'profile:7', open_tasks: 1, tasks: 1 }], 'project_assignees')

  const archived = await call('project_action', { item_id: task.id, revision: 2, action: 'archive' })
  t.match(archived.body, { archived: true, revision: 3 }, 'project_action archive (Action)')
  t.match(await call('project_action', { item_id: task.id, revision: 3, action: 'trash' }), { isError: true, body: { error: { status: 400 } } },
    'the local actions (trash) are not the portal\'s')

  // A second board to move a task to, and a task to move and then delete.
  const other = await owner('POST', `${P}/project/boards`, { idempotency_key: crypto.randomUUID(), name: 'agents' })
  if (other.status !== 200) throw new Error(`board: ${other.status} ${JSON.stringify(other.body)}`)
  const otherTodo = (await call('project_statuses', { board_id: other.body.id })).body.items.find((s: { category: string }) => s.category === 'todo')
  const mover = (await call('project_create', { title: 'to move', idempotency_key: crypto.randomUUID() })).body
  const moved = await call('project_move', { item_id: mover.id, revision: 1, target_board_id: other.body.id, target_status_id: otherTodo.id })
  t.match(moved, { isError: false, body: { id: mover.id, board_id: other.body.id, status_id: otherTodo.id, revision: 2 } }, 'project_move (TaskMove)')
  const deleted = await call('project_delete', { item_id: mover.id, revision: 2 })
  t.match(deleted, { isError: false, body: { id: mover.id, deleted: true, revision: 3 } }, 'project_delete (RevisionInput)')
  t.match(await call('project_delete', { item_id: mover.id }), { isError: true, body: { error: { code: 'LOOKOUT_VALIDATION' } } }, 'RevisionInput requires revision')
  t.notOk((await call('project_list')).body.items.some((i: { id: string }) => i.id === mover.id), 'a deleted task is not listed')

  const page1 = await call('logs_query', { resource_id: rid, limit: 1 })
  t.equal(page1.body.events.length, 1, 'logs_query: one per page')
  t.match(page1.body.events[0], { message: 'mcp second line' }, 'newest first')
  t.type(page1.body.next_cursor, 'string')
  const page2 = await call('logs_query', { resource_id: rid, limit: 1, cursor: page1.body.next_cursor })
  t.match(page2.body.events[0], { message: 'mcp first line' }, 'the cursor continues')
  t.equal((await call('logs_query', { resource_id: rid, severity: 'error' })).body.events.length, 1, 'a severity filter')
  t.match(await call('logs_query', { resource_id: rid, limit: 101 }), { isError: true, body: { error: { status: 400 } } }, 'limit max 100')

  const notifications = await call('notifications_read', { filter: 'unread', page: 1, limit: 50 })
  t.match(notifications, { isError: false, body: { items: Array, next_page: null } }, 'notifications_read: items and next_page')
  t.match(await call('notifications_read', { limit: 51 }), { isError: true, body: { error: { code: 'LOOKOUT_VALIDATION', status: 400 } } },
    'notifications_read: limit max 50')
  t.match(await call('notifications_read', { filter: 'starred' }), { isError: true }, 'notifications_read: filters all, unread, archived')

  const health = await call('monitoring_query', { resource_id: rid })
  t.match(health.body, { resource_id: rid, health: 'unknown', checks: [], incidents: [] }, 'monitoring_query')
  t.match((await call('service_health')).body, { status: 'ready' }, 'service_health')

  await t.rejects(client.callTool({ name: 'run_command', arguments: { command: 'id' } }), /Unknown tool/, 'no other tool exists')
})

t.test('--read-only: read tools only; writes are refused and change nothing', async (t) => {
  const { client, call } = await connect(t, ['--read-only'])
  t.teardown(() => client.close())
  const { tools } = await client.listTools()
  t.same(tools.map((x) => x.name).sort(), EXPECTED_TOOLS.filter((n) => !WRITE_TOOLS.includes(n)).sort(), 'no write tool is listed')
  const before = (await owner('GET', '/v1/projects/items')).body.items.length
  for (const name of WRITE_TOOLS) {
    const r = await call(name, { title: 'x', idempotency_key: crypto.randomUUID() })
    t.match(r, { isError: true, body: { error: { code: 'LOOKOUT_MCP_READ_ONLY', status: 403 } } }, `${name} refused`)
  }
  t.equal((await owner('GET', '/v1/projects/items')).body.items.length, before, 'nothing was created')
  t.notOk((await call('project_list')).isError, 'reads work')
  t.notOk((await call('notifications_read')).isError)
})

t.test('--grant: the grant\'s scopes and resources, enforced by the service', async (t) => {
  const grant = await td.grant(['project:read', 'logs:read'], [rid])
  const { client, call } = await connect(t, ['--grant', grant.id])
  t.teardown(() => client.close())
  const { tools } = await client.listTools()
  const names = tools.map((x) => x.name)
  t.same(names.sort(), ['workspace_list', 'resource_list', 'service_health', 'logs_query',
    ...EXPECTED_TOOLS.filter((n) => n.startsWith('project_') && !WRITE_TOOLS.includes(n))].sort(), 'only what its scopes reach')
  t.ok((await call('project_list', { archived: true })).body.items.some((i: { id: string }) => i.id === agentTaskId), 'project:read works')

  // Unlisted tools still reach the service, which refuses them: the listing is a courtesy, not the check.
  const write = await call('project_create', { title: 'not allowed', idempotency_key: crypto.randomUUID() })
  t.match(write, { isError: true, body: { error: { status: 403, code: 'LOOKOUT_FORBIDDEN', message: /project:write/ } } }, 'no project:write')
  t.match(await call('notifications_read'), { isError: true, body: { error: { status: 403 } } }, 'no notifications:read')
  t.match(await call('monitoring_query', { resource_id: rid }), { isError: true, body: { error: { status: 403 } } }, 'no monitor:read')
  t.equal((await call('logs_query', { resource_id: rid })).body.events.length, 2, 'logs of its resource')
  t.match(await call('logs_query', { resource_id: otherRid }), { isError: true, body: { error: { status: 403 } } }, 'not another resource\'s')
  const ws = await call('workspace_list')
  t.same(ws.body.items.map((w: { id: string }) => w.id), [workspaceId], 'its own workspace')

  t.equal((await owner('DELETE', `/v1/grants/${grant.id}`)).status, 200)
  t.match(await call('project_list'), { isError: true, body: { error: { status: 401 } } }, 'revoked: refused at once')

  const writer = await td.grant(['project:read', 'project:write'])
  const w = await connect(t, ['--grant', writer.id])
  t.teardown(() => w.client.close())
  t.ok((await w.client.listTools()).tools.some((x) => x.name === 'project_create'), 'a write grant lists writes')
  const made = await w.call('project_create', { title: 'by a grant', idempotency_key: crypto.randomUUID() })
  t.notOk(made.isError, 'and may write')
  const feed = (await w.call('project_history', { limit: 100 })).body.items
  t.match(feed.find((e: { item_id: string }) => e.item_id === made.body.id), { action: 'create', actor: { owner: false, token_id: writer.id } },
    'the history names the grant, not the owner')
})

t.test('start-up refusals: both flags, no service, an unusable grant', async (t) => {
  const both = await runMcp(['--read-only', '--grant', crypto.randomUUID()])
  t.equal(both.code, 2, 'both flags: usage error')
  t.match(both.stderr, /--read-only and --grant cannot be used together/)
  t.equal(both.stdout, '', 'nothing on stdout')

  const unknown = await runMcp(['--grant', crypto.randomUUID()])
  t.equal(unknown.code, 77, 'an unknown grant')
  t.match(unknown.stderr, /cannot be used/)
  const revoked = await td.grant(['project:read'])
  t.equal((await owner('DELETE', `/v1/grants/${revoked.id}`)).status, 200)
  t.equal((await runMcp(['--grant', revoked.id])).code, 77, 'a revoked grant')

  // No runtime directory at all, then a private directory with no socket in it.
  const nowhere = await runMcp([], { ...env, XDG_RUNTIME_DIR: join(td.base, 'no-such-runtime') })
  t.equal(nowhere.code, 69, 'no service: EX_UNAVAILABLE')
  t.match(nowhere.stderr, /desktop service is not running.*lookout desktop/)
  const empty = join(td.base, 'empty-run')
  mkdirSync(empty, { mode: 0o700 })
  const noSocket = await runMcp(['--socket', join(empty, 'lookout.sock')])
  t.equal(noSocket.code, 69)
  t.match(noSocket.stderr, /not running/)
})

t.test('the raw protocol: newline-delimited JSON-RPC 2.0', async (t) => {
  const p = spawn(process.execPath, ['deploy/lookout.ts', 'mcp', '--read-only'], { env, stdio: ['pipe', 'pipe', 'pipe'] })
  const lines: any[] = []
  let buf = ''
  p.stdout.on('data', (d) => {
    buf += d
    let i
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buf.slice(0, i)))
      buf = buf.slice(i + 1)
    }
  })
  const exited = new Promise<number | null>((resolve) => p.on('exit', resolve))
  const send = (m: unknown) => p.stdin.write((typeof m === 'string' ? m : JSON.stringify(m)) + '\n')
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) // pinned-date: MCP's protocol version is named by a date
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  send({ jsonrpc: '2.0', id: 'two', method: 'ping' })
  send('{"jsonrpc": "2.0", "id": 3, "method"')
  send({ jsonrpc: '2.0', id: 4, method: 'resources/list' })
  send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'nope' } })
  send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'service_health', arguments: {} } })
  p.stdin.end()
  t.equal(await exited, 0, 'stdin closed: exits 0 after answering')
  const byId = new Map(lines.map((l) => [l.id, l]))
  t.equal(lines.length, 6, 'one answer per request, none for the notification')
  t.match(byId.get(1), { jsonrpc: '2.0', result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'lookout' } } }, // pinned-date: MCP's protocol version
    'initialize: the version asked for')
  t.same(byId.get('two'), { jsonrpc: '2.0', id: 'two', result: {} }, 'ping')
  t.match(byId.get(null), { error: { code: -32700 } }, 'a broken line: parse error')
  t.match(byId.get(4), { error: { code: -32601 } }, 'an unknown method')
  t.match(byId.get(5), { error: { code: -32602, message: /Unknown tool/ } }, 'an unknown tool')
  t.match(byId.get(6), { result: { isError: false, structuredContent: { status: 'ready' } } }, 'a tool call')
})

t.test('the service stops while a client is connected: an isError result, not a crash; the server reconnects', async (t) => {
  const { client, call } = await connect(t)
  t.teardown(() => client.close())
  t.notOk((await call('service_health')).isError)
  t.equal(await td.terminate(), 0, '`lookout desktop` stops on SIGTERM with exit 0')
  t.match(td.stdout(), /SIGTERM: stopping\n[\s\S]*stopped\n/, 'and says so')
  const r = await call('project_list')
  t.match(r, { isError: true, body: { error: { code: 'LOOKOUT_SERVICE_UNAVAILABLE', status: 503 } } })
  t.same(await client.ping(), {}, 'the tool server itself still answers')

  // The same user starts the service again: the next call reaches it, and the data is still there.
  const before = td
  td = await startDesktopProcess({}, before)
  const again = await call('project_get', { item_id: agentTaskId })
  t.notOk(again.isError, 'reconnected to the new service')
  t.match(again.body, { title: 'written by an agent', archived: true }, 'the task written before the restart')
})
