// Counts every request: one onResponse hook on the whole app (hence
// fastify-plugin) feeding the batched recorder, flushed on close. Also
// registers the usage routes, which read what the recorder wrote.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { Database } from '../../core/index.ts'
import type { CursorCodec } from '../../core/index.ts'
import { RequestRecorder, type RecorderOptions } from '../../workspace/index.ts'
import { usageRoutes } from './routes.ts'

export interface UsageOptions {
  db: Database
  cursors: CursorCodec
  recorder?: RecorderOptions
}

async function usagePlugin(app: FastifyInstance, opts: UsageOptions): Promise<void> {
  const recorder = new RequestRecorder(opts.db, {
    ...opts.recorder,
    onError: (err) => app.log.warn({ err }, 'request recording: write to PostgreSQL failed; will retry'),
  })
  app.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const p = req.principal
    recorder.record({
      at: Date.now(),
      workspaceId: p === null ? null : p.workspaceId,
      keyId: p === null ? '' : p.tokenId,
      requestId: req.id,
      method: req.method,
      route: req.routeOptions.url ?? '',
      status: reply.statusCode,
      durationMs: reply.elapsedTime,
    })
    done()
  })
  app.addHook('onClose', async () => {
    await recorder.close()
  })
  await app.register(usageRoutes, { db: opts.db, cursors: opts.cursors, recorder })
}

export const requestUsage = fp(usagePlugin, { name: 'lookout-usage', dependencies: ['lookout-auth'] })
