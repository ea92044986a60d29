// GET /v1/pipeline: this process's ingest pipeline over the last hour (the
// console's ingest page), from the in-process samples (samples.ts). The numbers
// are process-wide, not per workspace, so only a token for every resource of
// its workspace may read them.
import type { FastifyInstance } from 'fastify'
import { principalOf } from '../auth/plugin.ts'
import { ForbiddenError } from '../../core/index.ts'
import type { PipelineSamples } from '../../metrics/index.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

export async function pipelineRoute(app: FastifyInstance, opts: { samples: PipelineSamples | null }): Promise<void> {
  app.get('/v1/pipeline', {
    // Process-wide figures: on a desktop service, the owner's.
    config: { auth: { contract: 'cloud', scope: null }, access: OWNER_ONLY },
    schema: {
      summary: 'Lookout extension: this process\'s ingest pipeline over the last hour (accepted and stored events per second, JetStream backlog, refusals by reason, dead letters), sampled in process; scale-out deployments scrape /metrics of each process instead',
      tags: ['operations'],
      querystring: { type: 'object', additionalProperties: false, properties: {} },
    },
  }, async (req) => {
    const p = principalOf(req)
    if (p.resourceIds !== null) throw new ForbiddenError('the pipeline is process-wide: it needs a token for every resource')
    const s = opts.samples
    return { available: s !== null, interval_seconds: s === null ? null : s.intervalMs / 1000, samples: s?.samples() ?? [] }
  })
}
