// The OpenAPI document: generated from the routes the server registered at
// this moment (a route group added later is covered without editing this
// file), valid OpenAPI 3.1, and its request schemas equal to the contract's
// field tables.
import t from 'tap'
import SwaggerParser from '@apidevtools/swagger-parser'
import { BATCH_SCHEMA, LEGACY_BATCH_SCHEMA } from '../../ingest/index.ts'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { buildApp } from '../../api/index.ts'
import { DesktopService } from '../../desktop/index.ts'
import { recordRoutes } from '../../api/openapi/catalogue.ts'
import { startTestLookout } from '../helpers/lookout.ts'
import { BODIES, QUERIES, QUERY_ROUTES } from './contract-fields.ts'
import { compareField, compareObject, type JsonSchema } from './schema-match.ts'
import { routeProblems, routerRoutes } from './route-docs.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
const app = lk.lookout.app!
const served = await lk.req('GET', '/v1/openapi.json', undefined, { authorization: '' })
const doc = served.body

const bodyOf = (method: string, path: string): JsonSchema | undefined =>
  doc.paths[path]?.[method]?.requestBody?.content?.['application/json']?.schema

t.test('GET /v1/openapi.json serves a valid OpenAPI 3.1 document without a credential', async (t) => {
  t.equal(served.status, 200)
  t.match(served.headers.get('content-type'), /application\/json/)
  t.equal(doc.openapi, '3.1.0')
  t.equal(doc.info.title, 'Lookout API')
  t.equal(doc.info.version, '0.1.0')
  t.same(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer', description: doc.components.securitySchemes.bearer.description })
  // validate() dereferences in place: give it a copy.
  const validated = await SwaggerParser.validate(structuredClone(doc))
  t.ok(validated, 'swagger-parser accepts it')
  const broken = structuredClone(doc)
  const anyPath = Object.keys(broken.paths)[0] as string
  broken.paths[anyPath].get = { responses: 'not a responses object' }
  await t.rejects(SwaggerParser.validate(broken), 'the validator refuses a broken document')
})

t.test('every route in the router has a schema and an operation in the document', async (t) => {
  // The list comes from the running server's router (routerRoutes reads Fastify's own tree), not from this file.
  const routes = routerRoutes(app).filter((r) => r.method !== 'HEAD')
  t.ok(routes.length >= 60, `${routes.length} routes in the router`)
  t.equal(app.routeCatalogue.filter((r) => r.method !== 'HEAD').length, routes.length, 'the plugin saw each of them')
  t.same(routeProblems(app, doc), [], 'no route without a schema, undocumented or hidden')
  t.ok(Object.keys(doc.paths).length >= 50, `${Object.keys(doc.paths).length} paths documented`)
})

t.test('the desktop service\'s routes and listeners are documented too; a route without a schema is caught wherever it is added', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-openapi-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const desktop = await DesktopService.open(lk.lookout.db, { socketPath: join(dir, 'owner.sock') })
  const other = await buildApp({ db: lk.lookout.db, ingest: lk.lookout.ingest as never, store: lk.lookout.store, maxEventLoopDelayMs: 0, desktop, loopback: true })
  t.teardown(() => other.close())
  await other.register(async (group) => {
    group.get('/v1/late/:thing_id', async () => ({ ok: true }))
    group.post('/v1/late', { schema: { hide: true, body: { type: 'object' } } }, async () => ({ ok: true }))
  })
  await other.ready()
  const otherDoc = other.swagger() as any
  for (const path of ['/v1/settings', '/v1/desktop']) t.ok(otherDoc.paths[path]?.get, `${path} is documented`)
  t.ok(otherDoc.paths['/v1/settings']?.patch?.requestBody, 'PATCH /v1/settings documents its body')
  await SwaggerParser.validate(structuredClone(otherDoc))
  const problems = routeProblems(other, otherDoc)
  t.ok(problems.includes('GET /v1/late/:thing_id: no schema'), 'a route without a schema')
  t.ok(problems.includes('GET /v1/late/:thing_id: path parameter thing_id has no schema'), 'an undeclared path parameter')
  t.ok(problems.includes('POST /v1/late: hidden from the document'), 'a route hidden from the document')
  t.equal(problems.length, 3, problems.join('; '))

  // A route the onRoute catalogue never saw (registered before it started) is still found in the router.
  const bare = Fastify()
  bare.get('/v1/early/:id', { schema: { summary: 'early' } }, async () => ({}))
  recordRoutes(bare)
  bare.get('/v1/later', { schema: { summary: 'later' } }, async () => ({}))
  await bare.ready()
  t.same(routerRoutes(bare).map((r) => `${r.method} ${r.url}`).sort(), ['GET /v1/early/:id', 'GET /v1/later', 'HEAD /v1/early/:id', 'HEAD /v1/later'])
  t.same(routeProblems(bare, { paths: { '/v1/later': { get: {} } } }), ['GET /v1/early/:id: in the router but not seen by the OpenAPI plugin (registered before it?)'])
  await bare.close()
})

t.test('operations carry security, scope, contract and error responses from the route config', async (t) => {
  const ingest = doc.paths['/v1/workspaces/{workspace_id}/resources/{resource_id}/logs'].post
  t.equal(ingest.security, undefined, 'inherits the bearer requirement')
  t.equal(ingest['x-lookout-scope'], 'logs:write')
  t.equal(ingest['x-lookout-contract'], 'cloud')
  t.ok(ingest.responses['422'] && ingest.responses['401'] && ingest.responses['403'], 'cloud error responses')
  t.same(ingest.responses['422'].content['application/json'].schema.required, ['detail'])
  const legacy = doc.paths['/v1/logs'].post
  t.equal(legacy['x-lookout-contract'], 'desktop')
  t.ok(legacy.responses['400'], 'desktop validation is a 400')
  t.same(legacy.responses['400'].content['application/json'].schema.required, ['error'])
  for (const path of ['/v1/health', '/v1/ready', '/v1/openapi.json']) {
    t.same(doc.paths[path].get.security, [], `${path} is public`)
  }
  const ids = Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((op: any) => op.operationId))
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')
})

t.test('raw-body ingest routes: bodies documented, never validated by Fastify', async (t) => {
  const cat = (method: string, url: string) => app.routeCatalogue.find((r) => r.method === method && r.url === url)
  const json = cat('POST', '/v1/workspaces/:workspace_id/resources/:resource_id/logs')
  const otlp = cat('POST', '/v1/workspaces/:workspace_id/resources/:resource_id/otlp/v1/logs')
  const legacy = cat('POST', '/v1/logs')
  for (const r of [json, otlp, legacy]) t.equal((r?.schema as { body?: unknown } | undefined)?.body, undefined, `${r?.url}: no Fastify body schema`)
  t.same(bodyOf('post', '/v1/workspaces/{workspace_id}/resources/{resource_id}/logs'), BATCH_SCHEMA, 'the JSON batch schema the workers validate with')
  const legacyBody = bodyOf('post', '/v1/logs') as JsonSchema
  t.same(legacyBody.properties.events.items, LEGACY_BATCH_SCHEMA.properties.events.items, 'the legacy event schema')
  const otlpContent = doc.paths['/v1/workspaces/{workspace_id}/resources/{resource_id}/otlp/v1/logs'].post.requestBody.content
  t.same(Object.keys(otlpContent).sort(), ['application/json', 'application/x-protobuf'])
  // Documented, not enforced by Fastify: a body the schema refuses reaches the worker, which answers the contract's 422.
  const rid = await lk.resource('openapi-raw')
  const bad = await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`, { events: [{ message: 1 }] })
  t.equal(bad.status, 422)
  t.same(bad.body.detail[0].loc, ['body', 'events', 0, 'message'])
})

t.test('request bodies match the contract\'s field tables', async (t) => {
  let checked = 0
  for (const [method, path, name] of BODIES) {
    if (doc.paths[path]?.[method] === undefined) {
      t.comment(`${method.toUpperCase()} ${path} (${name}): not registered yet`)
      continue
    }
    const schema = bodyOf(method, path)
    t.ok(schema, `${method.toUpperCase()} ${path} documents a JSON body`)
    if (schema === undefined) continue
    t.same(compareObject(name, name, schema), [], `${method.toUpperCase()} ${path} is ${name}`)
    checked++
  }
  t.ok(checked >= 30, `${checked} request bodies compared`)
})

t.test('query parameters match the contract', async (t) => {
  let checked = 0
  for (const [path, set] of QUERY_ROUTES) {
    const op = doc.paths[path]?.get
    if (op === undefined) {
      t.comment(`GET ${path} (${set}): not registered yet`)
      continue
    }
    const params: Record<string, JsonSchema> = Object.fromEntries((op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => [p.name, p.schema]))
    const spec = QUERIES[set] as Record<string, string>
    const problems = Object.entries(spec).flatMap(([name, f]) => compareField(`${set}.${name}`, f, params[name]))
    t.same(problems, [], `GET ${path} takes ${set}`)
    const extra = Object.keys(params).filter((n) => !(n in spec))
    if (extra.length > 0) t.comment(`GET ${path}: parameters beyond the contract: ${extra.join(', ')}`)
    checked++
  }
  t.ok(checked >= 20, `${checked} query sets compared`)
})

t.test('the comparison finds a difference when there is one', async (t) => {
  const board = structuredClone(bodyOf('post', '/v1/workspaces/{workspace_id}/project/boards')) as JsonSchema
  t.same(compareObject('BoardCreate', 'BoardCreate', board), [])
  board.properties.name.maxLength = 121
  board.properties.extra = { type: 'string' }
  board.required = ['name']
  delete board.properties.board_id
  board.additionalProperties = true
  t.same(compareObject('BoardCreate', 'BoardCreate', board).sort(), [
    'BoardCreate.board_id: missing',
    'BoardCreate.extra: not in the spec\'s BoardCreate',
    'BoardCreate.idempotency_key: must be required',
    'BoardCreate.name: maxLength 121, the spec says 120',
    'BoardCreate: unknown properties must be rejected (additionalProperties: false)',
  ])
  t.same(compareField('x', 'str? {a,b}', { type: 'string', enum: ['a', 'c'] }), ['x: must accept null', 'x: enum {a,c}, the spec says {a,b}'])
  t.same(compareField('x', 'int! >0 <=10', { type: 'integer', minimum: 0, maximum: 10 }), ['x: lower bound 0, the spec says 1'])
  t.same(compareField('x', 'uuid[]? max 100', { type: ['array', 'null'], items: { type: 'string', format: 'uuid' }, maxItems: 100 }), [])
})

t.test('the browsable reference page', async (t) => {
  const page = await fetch(`${lk.url}/v1/docs/`)
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /text\/html/)
  t.match(await page.text(), /swagger-ui/i)
  const init = await fetch(`${lk.url}/v1/docs/static/swagger-initializer.js`)
  t.equal(init.status, 200)
  const json = await lk.req('GET', '/v1/docs/json', undefined, { authorization: '' })
  t.same(json.body.paths, doc.paths, 'the page reads the same document')
})
