// Every route the app registers, as Fastify was given it: the OpenAPI test
// walks this list, so a route group added later is covered without editing
// the test.
import type { FastifyInstance, RouteOptions } from 'fastify'

export interface CataloguedRoute {
  method: string
  url: string
  schema: RouteOptions['schema']
  config: RouteOptions['config']
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Routes registered after the operations plugin (HEAD twins excluded). */
    routeCatalogue: readonly CataloguedRoute[]
  }
}

/** Starts recording routes on this (root) instance. */
export function recordRoutes(app: FastifyInstance): void {
  const routes: CataloguedRoute[] = []
  app.decorate('routeCatalogue', routes)
  app.addHook('onRoute', (r) => {
    for (const method of Array.isArray(r.method) ? r.method : [r.method]) {
      if (method === 'HEAD' && isHeadTwin(routes, r.url)) continue
      routes.push({ method, url: r.url, schema: r.schema, config: r.config })
    }
  })
}

// Fastify adds a HEAD route for every GET (exposeHeadRoutes); it is not a route of its own.
function isHeadTwin(routes: readonly CataloguedRoute[], url: string): boolean {
  return routes.some((r) => r.method === 'GET' && r.url === url)
}
