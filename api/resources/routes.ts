// Cloud resource routes: register, list, read and edit.
import type { FastifyInstance } from 'fastify'
import type { Sql } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import type { CursorCodec } from '../../core/index.ts'
import { ForbiddenError } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { RESOURCE_CREATE, RESOURCE_LIST_QUERY, RESOURCE_PARAMS, RESOURCE_SERVICE_PARAMS, RESOURCE_UPDATE, WORKSPACE_PARAMS } from '../../workspace/index.ts'
import {
  associateService, getResource, listResources, registerResource, updateResource, type ResourceInput, type ResourcePatch,
} from '../../workspace/index.ts'
import { ANY_GRANT } from '../../desktop/index.ts'

export interface ResourceRoutesOptions {
  db: Sql
  cursors: CursorCodec
}

const P = '/v1/workspaces/:workspace_id'

export async function resourceRoutes(app: FastifyInstance, opts: ResourceRoutesOptions): Promise<void> {
  const { db, cursors } = opts
  // Registering a resource is not a credential: any grant reads them.
  const read = { auth: { contract: 'cloud', scope: null }, access: ANY_GRANT } as const
  const write = { auth: { contract: 'cloud', scope: SCOPES.resourcesWrite }, access: [SCOPES.resourcesWrite] } as const

  app.get(`${P}/resources`, { config: read, schema: { params: WORKSPACE_PARAMS, querystring: RESOURCE_LIST_QUERY } }, async (req) => {
    const p = principalOf(req)
    const q = req.query as { cursor?: string; limit: number; external_id?: string }
    let after: [string, string] | null = null
    if (q.cursor !== undefined) {
      const v = cursors.decode('resources', q.cursor)
      if (v === null || v.length !== 2) throw new RequestInvalid([detail(['query', 'cursor'], 'Invalid cursor', 'value_error')])
      after = v as [string, string]
    }
    const page = await listResources(db, p.workspaceId, p.resourceIds, q.limit, after, q.external_id)
    return { items: page.items, next_cursor: page.last === null ? null : cursors.encode('resources', page.last) }
  })

  app.post(`${P}/resources`, { config: write, schema: { params: WORKSPACE_PARAMS, body: RESOURCE_CREATE } }, async (req, reply) => {
    const p = principalOf(req)
    if (p.resourceIds !== null) throw new ForbiddenError('registering a resource needs all-resource access')
    const { created, resource } = await registerResource(db, p.workspaceId, req.body as ResourceInput)
    reply.code(created ? 201 : 200)
    return resource
  })

  app.get(`${P}/resources/:resource_id`, { config: read, schema: { params: RESOURCE_PARAMS } }, async (req) => {
    const p = principalOf(req)
    return getResource(db, p.workspaceId, (req.params as { resource_id: string }).resource_id)
  })

  app.patch(`${P}/resources/:resource_id`, { config: write, schema: { params: RESOURCE_PARAMS, body: RESOURCE_UPDATE } }, async (req) => {
    const p = principalOf(req)
    return updateResource(db, p.workspaceId, (req.params as { resource_id: string }).resource_id, req.body as ResourcePatch)
  })

  // resources:write from the route, resource access from the grant check, services:read here.
  app.put(`${P}/resources/:resource_id/services/:service_id`, { config: write, schema: { params: RESOURCE_SERVICE_PARAMS } }, async (req) => {
    const p = principalOf(req)
    if (!p.scopes.has(SCOPES.servicesRead)) throw new ForbiddenError(`the token lacks the ${SCOPES.servicesRead} scope`)
    const { resource_id: rid, service_id: sid } = req.params as { resource_id: string; service_id: string }
    return associateService(db, p.workspaceId, rid, sid)
  })
}
