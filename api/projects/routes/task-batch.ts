// A Lookout extension to the cloud API (not in the workspace spec): task
// creation in batches, `POST /v1/workspaces/{ws}/tasks/batch` `{items: [TaskCreate]}`,
// 1..TASK_BATCH_MAX items. Each item is the single creation (`POST …/tasks`):
// its own idempotency key (a replay answers 200 with the first answer, never a
// second task), and one refused item does not refuse the others. The answer
// lists one result per item, in order: `{status: 201|200, task}` or
// `{status: 4xx, detail}`. The items share one commit: a failure of the server
// itself (5xx) or a crash leaves none of them, and the resent batch makes them
// all. The store writes a batch in a few multi-row statements (createTasks). A
// connected desktop pushes its offline creations this way (deploy/PORTAL.md,
// feature task-batch-v1).
import type { FastifyInstance } from 'fastify'
import { TASK_CREATE, WORKSPACE_PARAMS } from '../../../workspace/index.ts'
import { createTasks, type TaskCreateInput } from '../../../workspace/index.ts'
import type { DetailItem } from '../../../core/index.ts'
import { tracePoint } from './trace.ts'
import { CLOUD_WRITE, P, ctxOf, parts, type ProjectRouteOptions } from './common.ts'

/** The most creations one batch carries. */
export const TASK_BATCH_MAX = 250

const TASK_BATCH = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: { items: { type: 'array', minItems: 1, maxItems: TASK_BATCH_MAX, items: TASK_CREATE } },
} as const

type ItemError = Error & { statusCode?: number; code?: string; details?: DetailItem[] }

export async function taskBatchRoutes(app: FastifyInstance, { db }: ProjectRouteOptions): Promise<void> {
  app.post(`${P}/tasks/batch`, {
    config: CLOUD_WRITE,
    schema: {
      summary: `Create up to ${TASK_BATCH_MAX} tasks in one request (Lookout extension, feature task-batch-v1)`,
      description: 'Each item is a TaskCreate with its own idempotency key: `{items: [{status: 201, task} | {status: 200, task} (replay) | {status: 4xx, detail}]}` in order; '
        + 'a refused item refuses only itself. '
        + `More than ${TASK_BATCH_MAX} items, or none: 422.`,
      'x-lookout-extension': true, params: WORKSPACE_PARAMS, body: TASK_BATCH,
    },
  }, async (req) => {
    const { items } = parts<{ items: TaskCreateInput[] }>(req).body
    for (const item of items) await tracePoint('begin', item.idempotency_key)
    const results = await createTasks(ctxOf(req, db), items, ['body', 'items'])
    const out = results.map((r, i) => {
      if ('ok' in r) return { status: r.ok.status, task: r.ok.body }
      const e = r.error as ItemError
      return { status: e.statusCode, detail: e.details ?? [{ loc: ['body', 'items', i], msg: e.message, type: e.code ?? 'refused' }] }
    })
    for (let i = 0; i < items.length; i++) {
      const r = results[i]
      if (r !== undefined && 'ok' in r && !r.ok.replay) await tracePoint('committed', (items[i] as TaskCreateInput).idempotency_key)
    }
    return { items: out }
  })
}
