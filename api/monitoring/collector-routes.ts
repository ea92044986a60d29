// The routes a remote collector (`lookout collector`) calls, with its own
// credential (token kind `collector`, issued by enrolling a collector source)
// and nothing else: every other route refuses that kind, and these refuse every
// other kind. State lives in PostgreSQL only, so any api process serves them.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { setTimeout as sleep } from 'node:timers/promises'
import { NotACollectorError, acceptObservations, checksOfSource, checksTag, recordContact, sourceOfToken, type CollectorObservation, type CollectorSource } from '../../monitor/index.ts'
import type { Database } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { AuthInvalidError } from '../../workspace/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { COLLECTOR_CHECKS_QUERY, COLLECTOR_OBSERVATIONS } from './collector-schemas.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

// Remote collectors report to a cloud; a desktop service runs its checks itself (owner only there).
const AUTH = { auth: { contract: 'cloud', scope: SCOPES.monitorHeartbeat, kinds: ['collector'] }, access: OWNER_ONLY } as const
/** Sent by the collector; shown as the source's version. */
export const COLLECTOR_VERSION_HEADER = 'x-lookout-collector-version'
const POLL_STEP_MS = 500

async function sourceOf(db: Database, req: FastifyRequest): Promise<CollectorSource> {
  const principal = principalOf(req)
  // The desktop owner passes every route's token-kind check but has no collector source.
  if (principal.kind !== 'collector') throw new NotACollectorError()
  const source = await sourceOfToken(db, principal.tokenId)
  // A credential whose source was revoked (or is not a collector's) is no credential here.
  if (source === null) throw new AuthInvalidError()
  const version = req.headers[COLLECTOR_VERSION_HEADER]
  await recordContact(db, source.id, typeof version === 'string' ? version : '', req.ip, Date.now())
  return source
}

export async function collectorRoutes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  const { db } = opts
  let closing = false
  // Long polls end at once when the server drains.
  app.addHook('preClose', async () => {
    closing = true
  })

  app.get('/v1/collector/checks', {
    config: AUTH,
    schema: {
      summary: 'The checks assigned to this collector (location collector, its source_id), with their revisions and credential references (Lookout extension)',
      description: 'ETag / If-None-Match: unchanged checks answer 304; with `wait` the request is held until they change or the wait ends.',
      querystring: COLLECTOR_CHECKS_QUERY,
    },
  }, async (req, reply) => {
    const source = await sourceOf(db, req)
    const { wait } = req.query as { wait: number }
    const seen = req.headers['if-none-match']
    const until = Date.now() + wait * 1000
    let tag = await checksTag(db, source.id)
    while (tag === seen && Date.now() < until && !closing && !req.raw.destroyed) {
      await sleep(POLL_STEP_MS)
      tag = await checksTag(db, source.id)
    }
    reply.header('etag', tag).header('cache-control', 'no-store')
    if (tag === seen) return reply.code(304).send()
    return {
      source: { id: source.id, name: source.name, resource_id: source.resourceId },
      server_time: new Date().toISOString(),
      checks: await checksOfSource(db, source.id),
    }
  })

  app.post('/v1/collector/observations', {
    config: AUTH,
    schema: {
      summary: 'Push a batch of observations made by this collector (Lookout extension): idempotent by observation id, fenced by check revision',
      body: COLLECTOR_OBSERVATIONS,
    },
  }, async (req) => {
    const source = await sourceOf(db, req)
    const { observations } = req.body as { observations: CollectorObservation[] }
    return acceptObservations(db, source, observations.map((o) => ({ ...o, id: o.id.toLowerCase(), check_id: o.check_id.toLowerCase() })), Date.now())
  })
}
