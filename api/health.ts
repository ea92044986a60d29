// Liveness and readiness. /v1/health answers without a credential: load
// balancers and the launcher probe it (a documented exception to the spec's
// "every route requires a bearer credential"); it reveals nothing but "ok".
// /v1/ready is public for the same reason and names each dependency's state.
import type { FastifyInstance } from 'fastify'
import { DEPENDENCY_STATES, Readiness, type ReadinessCheck } from './readiness.ts'
import { ANY_GRANT } from '../desktop/index.ts'

export type { ReadinessCheck } from './readiness.ts'

export interface HealthOptions {
  version: string
  /** The app's readiness (shared with its gate); or `checks` to build one here. */
  readiness?: Readiness
  checks?: readonly ReadinessCheck[]
}

const NO_QUERY = { type: 'object', additionalProperties: false, properties: {} } as const
const STATE = { type: 'string', enum: Object.values(DEPENDENCY_STATES) } as const

const HEALTH_SCHEMA = {
  summary: 'Liveness: the process answers',
  querystring: NO_QUERY,
  response: {
    200: {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'version'],
      properties: { status: { type: 'string', enum: ['ok'] }, version: { type: 'string' } },
    },
  },
} as const

const REPORT = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'dependencies'],
  properties: {
    status: STATE,
    dependencies: {
      type: 'object',
      description: 'nats, clickhouse, postgresql, workers',
      additionalProperties: STATE,
    },
  },
} as const

const READY_SCHEMA = {
  summary: 'Readiness: every dependency (NATS, ClickHouse, PostgreSQL, worker pool) answers',
  description: 'Checks every dependency now; 200 when all are ready, 503 (with Retry-After) otherwise.',
  querystring: NO_QUERY,
  response: {
    200: { description: 'every dependency is ready', ...REPORT },
    503: { description: 'at least one dependency is unavailable', ...REPORT },
  },
} as const

export async function healthRoutes(app: FastifyInstance, opts: HealthOptions): Promise<void> {
  const readiness = opts.readiness ?? new Readiness(opts.checks ?? [])
  const open = { auth: { contract: 'cloud', scope: null, public: true }, access: ANY_GRANT } as const
  app.get('/v1/health', { config: open, schema: HEALTH_SCHEMA }, async () => ({ status: 'ok', version: opts.version }))

  app.get('/v1/ready', { config: open, schema: READY_SCHEMA }, async (_req, reply) => {
    const report = await readiness.check()
    if (report.status !== 'ready') reply.code(503).header('retry-after', '1')
    return report
  })
}
