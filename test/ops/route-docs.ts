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

export function routeProblems(app: FastifyInstance, doc: any): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  for (const r of app.routeCatalogue) {
    if (r.method === 'HEAD') continue // Fastify's twins of GET routes (and static files)
    const name = `${r.method} ${r.url}`
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
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const method of Object.keys(ops as object)) {
      if (!seen.has(`${method} ${path}`)) out.push(`${method.toUpperCase()} ${path}: documented but not registered`)
    }
  }
  return out
}
