// What the OpenAPI test demands of every route the app registered: a schema,
// its path parameters declared, an operation in the document with its body
// and query parameters. Kept apart from the test so it can also be run on an
// app with a deliberately bad route (it must find it).
import type { FastifyInstance } from 'fastify'

/** Routes that may stay out of the document (schema.hide): the reference page's assets and the Prometheus exposition. */
export function mayBeHidden(url: string): boolean {
  return url === '/metrics' || url === '/v1/docs' || url.startsWith('/v1/docs/')
}

export function openapiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
}

export interface RouterRoute {
  method: string
  url: string
}

/**
 * Every route in the app's router, read from Fastify's own print of its radix
 * tree (printRoutes): independent of the onRoute catalogue, so a route the
 * catalogue missed (registered before the OpenAPI plugin, or by a plugin that
 * bypasses onRoute) is still found. Each line is a tree node; a node's path is
 * its ancestors' labels joined; a node that is a route ends in `(METHODS)`.
 */
export function routerRoutes(app: FastifyInstance): RouterRoute[] {
  const out: RouterRoute[] = []
  const path: string[] = []
  for (const line of app.printRoutes().split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*)$/.exec(line)
    if (m === null) continue
    const depth = (m[1] as string).length / 4
    let label = m[2] as string
    const methods = / \(([A-Z]+(?:, [A-Z]+)*)\)$/.exec(label)
    if (methods !== null) label = label.slice(0, methods.index)
    path.length = depth
    path[depth] = label
    if (methods !== null) for (const method of (methods[1] as string).split(', ')) out.push({ method, url: path.join('') })
  }
  return out
}

export function routeProblems(app: FastifyInstance, doc: any): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  const catalogue = new Map(app.routeCatalogue.map((r) => [`${r.method} ${r.url}`, r]))
  const routes = routerRoutes(app)
  const gets = new Set(routes.filter((r) => r.method === 'GET').map((r) => r.url))
  if (routes.length === 0) out.push('the router lists no routes (printRoutes format changed?)')
  for (const { method, url } of routes) {
    if (method === 'HEAD' && gets.has(url)) continue // Fastify's twins of GET routes (and static files)
    const name = `${method} ${url}`
    const r = catalogue.get(name)
    if (r === undefined) {
      out.push(`${name}: in the router but not seen by the OpenAPI plugin (registered before it?)`)
      continue
    }
    const schema = (r.schema ?? undefined) as Record<string, any> | undefined
    const docsBody = (r.config as { openapi?: { body?: object } } | undefined)?.openapi?.body
    if (schema?.hide === true) {
      if (!mayBeHidden(r.url)) out.push(`${name}: hidden from the document`)
      continue
    }
    // A route that takes nothing still declares a schema (a summary at least): its author decided.
    if ((schema === undefined || Object.keys(schema).length === 0) && docsBody === undefined) out.push(`${name}: no schema`)
    const params = [...r.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string)
    for (const p of params) {
      if (schema?.params?.properties?.[p] === undefined) out.push(`${name}: path parameter ${p} has no schema`)
    }
    const path = openapiPath(r.url)
    const op = doc.paths?.[path]?.[r.method.toLowerCase()]
    seen.add(`${r.method.toLowerCase()} ${path}`)
    if (op === undefined) {
      out.push(`${name}: not in the document`)
      continue
    }
    if ((schema?.body !== undefined || docsBody !== undefined) && op.requestBody === undefined) out.push(`${name}: body not documented`)
    const query = new Set<string>((op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name))
    for (const q of Object.keys(schema?.querystring?.properties ?? {})) {
      if (!query.has(q)) out.push(`${name}: query parameter ${q} not documented`)
    }
    const pathParams = new Set<string>((op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name))
    for (const p of params) if (!pathParams.has(p)) out.push(`${name}: path parameter ${p} not documented`)
  }
  const inRouter = new Set(routes.map((r) => `${r.method} ${r.url}`))
  for (const key of catalogue.keys()) if (!inRouter.has(key)) out.push(`${key}: catalogued but not in the router`)
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const method of Object.keys(ops as object)) {
      if (!seen.has(`${method} ${path}`)) out.push(`${method.toUpperCase()} ${path}: documented but not registered`)
    }
  }
  return out
}
