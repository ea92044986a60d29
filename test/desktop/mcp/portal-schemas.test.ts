// The 15 project_* tools follow the portal's schemas exactly (local-desktop-api.md,
// "Tool server (stdio)"): as `lookout mcp` lists them to the official MCP client,
// each input schema is the cloud route's exported request schema object (only
// `nullable` rewritten as a null type), plus the route's path parameters, and
// each outputSchema is the route's response schema or the tool error envelope.
// Against a real `lookout desktop` child process (the tool server needs one to start).
import t from 'tap'
import { PORTAL_REQUEST_SCHEMAS as Q } from '../../../desktop/internal.ts'
import { toJsonSchema } from '../../../desktop/mcp/schema.ts'
import { TOOL_ERROR_SCHEMA } from '../../../desktop/mcp/server.ts'
import { TOOLS } from '../../../desktop/mcp/tools.ts'
import { startDesktopProcess } from '../desktop-helpers.ts'
import { connectMcp } from './mcp-helpers.ts'

const td = await startDesktopProcess()
t.teardown(() => td.stop())

// Each project_* tool, the portal's (cloud route's) request schema it takes, and whether the route's path has an item_id.
const PORTAL_INPUTS: Record<string, [object, boolean]> = {
  project_list: [Q.FILTER_QUERY, false],
  project_get: [Q.FILTER_QUERY, true],
  project_create: [Q.TASK_CREATE, false],
  project_update: [Q.TASK_UPDATE, true],
  project_action: [Q.ACTION, true],
  project_move: [Q.TASK_MOVE, true],
  project_delete: [Q.REVISION_INPUT, true],
  project_comments: [Q.FILTER_QUERY, true],
  project_comment_create: [Q.COMMENT_CREATE, true],
  project_boards: [Q.FILTER_QUERY, false],
  project_statuses: [Q.FILTER_QUERY, false],
  project_taxonomy: [Q.FILTER_QUERY, false],
  project_taxonomy_write: [Q.TAXONOMY_CONFIGURE, false],
  project_history: [Q.FILTER_QUERY, false],
  project_assignees: [Q.FILTER_QUERY, false],
}

t.test('each project_* tool takes the portal\'s request schema exactly, plus its path parameters', async (t) => {
  const { client } = await connectMcp(t, td.env as Record<string, string>)
  t.teardown(() => client.close())
  const { tools } = await client.listTools()
  const project = tools.filter((x) => x.name.startsWith('project_'))
  t.equal(project.length, 15, '15 project_* tools')
  t.same(project.map((x) => x.name).sort(), Object.keys(PORTAL_INPUTS).sort(), 'the portal tools')
  for (const listed of project) {
    const [cloud, item] = PORTAL_INPUTS[listed.name] as [object, boolean]
    const spec = TOOLS.find((x) => x.name === listed.name)
    t.equal(spec?.request, cloud, `${listed.name}: built from the exported cloud schema object itself`)

    // The listed schema without its path parameters is the cloud schema, field for field.
    const { workspace_id: ws, item_id: itemId, ...props } = listed.inputSchema.properties as Record<string, unknown>
    const { required, properties: _p, ...rest } = listed.inputSchema as Record<string, unknown>
    const want = toJsonSchema(cloud) as Record<string, unknown>
    const { required: wantRequired, properties: wantProps, ...wantRest } = want
    t.strictSame(props, wantProps, `${listed.name}: the cloud schema's properties`)
    t.strictSame(rest, wantRest, `${listed.name}: type and additionalProperties as the cloud schema's`)
    const pathRequired = item ? ['item_id'] : []
    if (wantRequired === undefined && !item) t.equal(required, undefined, `${listed.name}: nothing required, as in the cloud schema`)
    else t.strictSame(required, [...pathRequired, ...((wantRequired as string[] | undefined) ?? [])], `${listed.name}: the required fields`)

    // The path parameters: workspace_id (optional, default the acting workspace) on every route, item_id where the path has one.
    t.strictSame(Object.keys(listed.inputSchema.properties ?? {}).slice(0, item ? 2 : 1), item ? ['workspace_id', 'item_id'] : ['workspace_id'],
      `${listed.name}: the path parameters come first`)
    t.match(ws, { type: 'string', format: 'uuid' }, `${listed.name}: workspace_id`)
    if (item) t.match(itemId, { type: 'string', format: 'uuid' }, `${listed.name}: item_id`)
    else t.equal(itemId, undefined, `${listed.name}: no item_id`)

    t.strictSame(listed.outputSchema, { type: 'object', anyOf: [spec?.output, TOOL_ERROR_SCHEMA] },
      `${listed.name}: outputSchema: the route's response or the tool error`)
  }
  for (const other of tools.filter((x) => !x.name.startsWith('project_'))) {
    t.equal(other.outputSchema, undefined, `${other.name}: unchanged, no outputSchema`)
  }
})

t.test('the input schema is the request schema: the server applies it before any request', async (t) => {
  const { client, call } = await connectMcp(t, td.env as Record<string, string>)
  t.teardown(() => client.close())
  // Limits of the cloud schemas, at max and max+1, refused by the tool server itself (400 LOOKOUT_VALIDATION).
  const refused = { isError: true, body: { error: { code: 'LOOKOUT_VALIDATION', status: 400 } } }
  const key = () => crypto.randomUUID()
  t.match(await call('project_create', { title: 'x'.repeat(161), idempotency_key: key() }), refused, 'TaskCreate title max 160')
  t.match(await call('project_create', { title: 'ok', idempotency_key: key(), label_ids: Array.from({ length: 101 }, key) }), refused, 'label_ids max 100')
  t.match(await call('project_list', { limit: 101 }), refused, 'filter set limit max 100')
  t.match(await call('project_list', { limit: 0 }), refused, 'filter set limit min 1')
  t.match(await call('project_list', { type_ids: 'not-an-array' }), refused, 'type_ids is an array of uuids')
  t.match(await call('project_update', { item_id: key(), revision: 0 }), refused, 'revision >= 1')
  t.match(await call('project_taxonomy_write', { kind: 'label', operation: 'create', revision: 'short' }), refused, 'catalogue revision is 64 characters')
  const made = await call('project_create', { title: 'x'.repeat(160), idempotency_key: key(), label_ids: [] })
  t.match(made, { isError: false, body: { title: 'x'.repeat(160), description: '', acceptance: '', priority: 'normal' } },
    'title of 160 accepted; the schema defaults applied')
  t.match((await call('project_list', { limit: 100 })).body.items, [{ id: made.body.id }], 'limit 100 accepted')
})
