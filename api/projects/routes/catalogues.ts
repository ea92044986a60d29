// Cloud catalogues: board statuses (BoardConfigure) and task taxonomy (TaxonomyConfigure).
import type { FastifyInstance } from 'fastify'
import { BOARD_CONFIGURE, FILTER_QUERY, TAXONOMY_CONFIGURE } from '../../../workspace/index.ts'
import { WORKSPACE_PARAMS } from '../../../workspace/index.ts'
import { configureStatuses, statusCatalogue, type BoardConfigureInput } from '../../../workspace/index.ts'
import { configureTaxonomy, taxonomyCatalogue, type TaxonomyInput } from '../../../workspace/index.ts'
import type { FilterQuery } from './boards.ts'
import { CLOUD_READ, CLOUD_WRITE, P, ctxOf, parts, type ProjectRouteOptions } from './common.ts'

export async function catalogueRoutes(app: FastifyInstance, { db }: ProjectRouteOptions): Promise<void> {
  app.get(`${P}/project/statuses`, { config: CLOUD_READ, schema: { params: WORKSPACE_PARAMS, querystring: FILTER_QUERY } }, async (req) => {
    const { query: q } = parts<never, FilterQuery>(req)
    return statusCatalogue(ctxOf(req, db), q.board_id, q.archived === true)
  })

  app.post(`${P}/project/statuses`, { config: CLOUD_WRITE, schema: { params: WORKSPACE_PARAMS, body: BOARD_CONFIGURE } }, async (req) => {
    const { body } = parts<BoardConfigureInput>(req)
    return configureStatuses(ctxOf(req, db), body)
  })

  app.get(`${P}/project/taxonomy`, { config: CLOUD_READ, schema: { params: WORKSPACE_PARAMS, querystring: FILTER_QUERY } }, async (req) => {
    const { query: q } = parts<never, FilterQuery>(req)
    return taxonomyCatalogue(ctxOf(req, db), q.archived === true)
  })

  app.post(`${P}/project/taxonomy`, { config: CLOUD_WRITE, schema: { params: WORKSPACE_PARAMS, body: TAXONOMY_CONFIGURE } }, async (req) => {
    const { body } = parts<TaxonomyInput>(req)
    return configureTaxonomy(ctxOf(req, db), body)
  })
}
