// Liveness and readiness. /v1/health answers without a credential: load
// balancers and the launcher probe it (a documented exception to the spec's
// "every route requires a bearer credential"); it reveals nothing but "ok".
import type { FastifyInstance } from 'fastify'

export interface ReadinessCheck {
  name: string
  check(): Promise<boolean>
}

export interface HealthOptions {
  version: string
  checks: readonly ReadinessCheck[]
}

export async function healthRoutes(app: FastifyInstance, opts: HealthOptions): Promise<void> {
  app.get('/v1/health', { config: { auth: { contract: 'cloud', scope: null, public: true } } }, async () => ({ status: 'ok', version: opts.version }))

  app.get('/v1/ready', { config: { auth: { contract: 'cloud', scope: null, public: true } } }, async (_req, reply) => {
    const results = await Promise.all(opts.checks.map(async (c) => {
      const ok = await c.check().catch(() => false)
      return [c.name, ok ? 'ready' : 'unavailable'] as const
    }))
    const ready = results.every(([, s]) => s === 'ready')
    reply.code(ready ? 200 : 503)
    return { status: ready ? 'ready' : 'unavailable', dependencies: Object.fromEntries(results) }
  })
}
