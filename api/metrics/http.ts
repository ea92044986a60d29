// Per-route request metrics for every route of the app, ingest refusals by the
// error code the sender got, and GET /metrics on the API listener when
// LOOKOUT_METRICS_TOKEN is set (bearer; compared in constant time).
import { createHash, timingSafeEqual } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import { AuthInvalidError, AuthMissingError } from '../errors.ts'
import { SCOPES } from '../scopes.ts'
import type { IngestRouteLabel, LookoutMetrics } from './registry.ts'

export interface HttpMetricsOptions {
  metrics: LookoutMetrics
  /** Serve GET /metrics here, behind this bearer token. */
  token?: string
}

const FASTIFY_REASONS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
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

/** Which ingest route a request is on, or null: ingest routes are the POST routes needing logs:write. */
export function ingestRouteOf(req: FastifyRequest): IngestRouteLabel | null {
  if (req.method !== 'POST' || req.routeOptions.config.auth?.scope !== SCOPES.logsWrite) return null
  const url = req.routeOptions.url ?? ''
  if (url === '/v1/logs') return 'legacy'
  if (url.endsWith('/otlp/v1/logs')) return 'otlp'
  return 'json'
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

  app.addHook('onError', async (req, _reply, err) => {
    const label = errorLabel(err)
    errors.set(req, label)
    metrics.httpError(req.method, req.routeOptions.url ?? 'unmatched', label)
  })

  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched'
    metrics.httpRequest(req.method, route, reply.statusCode, reply.elapsedTime / 1000)
    if (reply.statusCode >= 400) {
      const ingest = ingestRouteOf(req)
      // Load shedding answers without an error object: its status is the reason then.
      if (ingest !== null) metrics.ingestRejected(ingest, errors.get(req) ?? `status_${reply.statusCode}`, bodyBytes(req))
    }
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
