// Per-route request metrics for every route of the app, ingest refusals by the
// error code the sender got, and GET /metrics on the API listener when
// LOOKOUT_METRICS_TOKEN is set (bearer; compared in constant time).
import { createHash, timingSafeEqual } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { AuthInvalidError, AuthMissingError } from '../../workspace/index.ts'
import type { LookoutMetrics } from '../../metrics/index.ts'
import type { IngestRoute } from '../../ingest/index.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An ingest route's kind: its requests are counted in the ingest metrics under this label. */
    ingest?: IngestRoute
  }
}

export interface HttpMetricsOptions {
  metrics: LookoutMetrics
  /** Serve GET /metrics here, behind this bearer token. */
  token?: string
}

const FASTIFY_REASONS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'bad_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'validation',
}

/** A bounded label for an error: our code without its prefix, a known Fastify code, or "internal". */
export function errorLabel(err: FastifyError): string {
  if (err.validation !== undefined) return 'validation'
  const code = err.code ?? ''
  if (code.startsWith('LOOKOUT_')) return code.slice('LOOKOUT_'.length).toLowerCase()
  return FASTIFY_REASONS[code] ?? (err instanceof SyntaxError ? 'validation' : 'internal')
}

type Hook = RouteOptions['onResponse']
function append<T>(hooks: T | T[] | undefined, hook: T): T[] {
  return hooks === undefined ? [hook] : Array.isArray(hooks) ? [...hooks, hook] : [hooks, hook]
}

function bodyBytes(req: FastifyRequest): number {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > 0) return declared
  return req.body instanceof Uint8Array ? req.body.byteLength : 0
}

const digest = (s: string) => createHash('sha256').update(s).digest()

async function httpMetricsPlugin(app: FastifyInstance, opts: HttpMetricsOptions): Promise<void> {
  const { metrics } = opts
  const errors = new WeakMap<FastifyRequest, string>()

  // Each route gets its own hooks, closed over its template and declared ingest kind: nothing is
  // looked up per request (a request's routeOptions is an object built on each access).
  app.addHook('onRoute', (route) => {
    const url = route.url
    const ingest = route.config?.ingest ?? null
    const onError = (req: FastifyRequest, _reply: FastifyReply, err: FastifyError, done: () => void) => {
      const label = errorLabel(err)
      errors.set(req, label)
      metrics.httpError(req.method, url, label)
      done()
    }
    const onResponse = (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
      metrics.httpRequest(req.method, url, reply.statusCode, reply.elapsedTime / 1000)
      // Load shedding answers without an error object: its status is the reason then.
      if (ingest !== null && reply.statusCode >= 400) metrics.ingestRejected(ingest, errors.get(req) ?? `status_${reply.statusCode}`, bodyBytes(req))
      done()
    }
    route.onError = append(route.onError, onError as never)
    route.onResponse = append(route.onResponse as Hook, onResponse as never) as never
  })
  // Requests that match no route share one label.
  app.addHook('onError', (req, _reply, err, done) => {
    if (req.is404) metrics.httpError(req.method, 'unmatched', errorLabel(err))
    done()
  })
  app.addHook('onResponse', (req, reply, done) => {
    if (req.is404) metrics.httpRequest(req.method, 'unmatched', reply.statusCode, reply.elapsedTime / 1000)
    done()
  })

  if (opts.token !== undefined && opts.token !== '') {
    const expected = digest(opts.token)
    app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
      const header = req.headers.authorization
      if (header === undefined || header === '') throw new AuthMissingError()
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
      if (m === null || !timingSafeEqual(digest(m[1] as string), expected)) throw new AuthInvalidError()
      reply.header('content-type', metrics.contentType).header('cache-control', 'no-store')
      return metrics.text()
    })
  }
}

export const httpMetrics = fp(httpMetricsPlugin, { name: 'lookout-http-metrics' })
