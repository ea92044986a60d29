// The OpenAPI 3.1 document, generated from the route schemas themselves
// (@fastify/swagger), served at GET /v1/openapi.json, with a browsable
// reference page at /v1/docs (@fastify/swagger-ui). Registered before the
// route groups: both plugins learn routes through onRoute hooks.
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { recordRoutes } from './catalogue.ts'
import { transformRoute } from './transform.ts'
import { ANY_GRANT } from '../../desktop/index.ts'

export interface OpenApiOptions {
  version: string
}

export const OPENAPI_PATH = '/v1/openapi.json'
export const DOCS_PREFIX = '/v1/docs'

const DESCRIPTION = [
  'Lookout: log ingestion (JSON batches, OTLP/HTTP, the legacy desktop batch), log queries, monitoring,',
  'projects, resources, services, identity and usage. Generated from the schemas the server validates with.',
  '',
  'Two contracts share the paths: cloud routes answer errors as `{detail: [{loc, msg, type}]}` (422 for',
  'validation), desktop routes as `{error: {message, code}}` (400 for validation). Each operation names its',
  'contract (`x-lookout-contract`) and the scope it needs (`x-lookout-scope`).',
].join('\n')

async function openapiPlugin(app: FastifyInstance, opts: OpenApiOptions): Promise<void> {
  recordRoutes(app)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Lookout API', version: opts.version, description: DESCRIPTION },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An access or sender token (lkt_...), created with `lookout token create`.' },
        },
      },
      security: [{ bearer: [] }],
    },
    transform: transformRoute as never,
  })
  // The reference page's routes are the plugin's: they declare here that any grant may read them.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (r) => { r.config = { ...r.config, access: ANY_GRANT } })
    await docs.register(swaggerUi, { routePrefix: DOCS_PREFIX, uiConfig: { docExpansion: 'list', deepLinking: true } })
  })
  app.get(OPENAPI_PATH, {
    config: { auth: { contract: 'cloud', scope: null, public: true }, access: ANY_GRANT },
    schema: {
      summary: 'This API\'s OpenAPI 3.1 document',
      querystring: { type: 'object', additionalProperties: false, properties: {} },
    },
  }, async () => app.swagger())
}

export const openapi = fp(openapiPlugin, { name: 'lookout-openapi' })
