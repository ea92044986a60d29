// Cloud project views: overview, timeline, activity feed, assignees.
import type { FastifyInstance } from 'fastify'
import { FILTER_QUERY } from '../../../workspace/index.ts'
import { WORKSPACE_PARAMS } from '../../../workspace/index.ts'
import { listActivity } from '../../../workspace/index.ts'
import { members, overview, timeline } from '../../../workspace/index.ts'
import type { FilterQuery } from './boards.ts'
import { CLOUD_READ, P, afterKey, ctxOf, cursorAfter, pageBody, parts, type ProjectRouteOptions } from './common.ts'
import { filtersOf } from './tasks.ts'

export async function viewRoutes(app: FastifyInstance, { db, cursors }: ProjectRouteOptions): Promise<void> {
  const list = { config: CLOUD_READ, schema: { params: WORKSPACE_PARAMS, querystring: FILTER_QUERY } }

  app.get(`${P}/project`, list, async (req) => {
    const { query: q } = parts<never, FilterQuery>(req)
    return overview(ctxOf(req, db), filtersOf(q))
  })

  app.get(`${P}/project/timeline`, list, async (req) => {
    const { query: q } = parts<never, FilterQuery>(req)
    const after = cursorAfter(cursors, 'timeline', q.cursor, 2) as [string, string] | null
    const page = await timeline(ctxOf(req, db), filtersOf(q), q.limit, after)
    return { items: page.items, next_cursor: page.last === null ? null : cursors.encode('timeline', page.last) }
  })

  app.get(`${P}/project/activity`, list, async (req) => {
    const { query: q } = parts<never, FilterQuery>(req)
    const ctx = ctxOf(req, db)
    const page = await listActivity(db, ctx.workspaceId, q, q.limit, afterKey(cursors, 'activity', q.cursor))
    return pageBody(cursors, 'activity', page)
  })

  app.get(`${P}/project/assignees`, list, async (req) => {
    const { query: q } = parts<never, FilterQuery>(req)
    const after = afterKey(cursors, 'assignees', q.cursor)
    const page = await members(ctxOf(req, db), filtersOf(q), q.limit, after === null ? null : Number(after))
    return pageBody(cursors, 'assignees', page)
  })
}
