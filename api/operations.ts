// What operators and integrators see of the app, registered before anything
// else so it covers every route: the OpenAPI document and reference page, the
// readiness gate, and per-route metrics (with GET /metrics when a token is set).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { openapi } from './openapi/plugin.ts'
import { readinessGate, type Readiness } from './readiness.ts'
import { httpMetrics } from './metrics/http.ts'
import type { LookoutMetrics } from '../metrics/index.ts'

export interface OperationsOptions {
  version: string
  readiness: Readiness
  metrics?: LookoutMetrics
  /** LOOKOUT_METRICS_TOKEN: serve GET /metrics on this listener behind it. */
  metricsToken?: string
}

async function operationsPlugin(app: FastifyInstance, opts: OperationsOptions): Promise<void> {
  await app.register(openapi, { version: opts.version })
  await app.register(readinessGate, { readiness: opts.readiness })
  if (opts.metrics !== undefined) {
    const metrics = opts.metrics
    opts.readiness.onReport((r) => metrics.readiness(r, opts.readiness.opened))
    await app.register(httpMetrics, { metrics, token: opts.metricsToken })
  }
}

export const operations = fp(operationsPlugin, { name: 'lookout-operations' })
