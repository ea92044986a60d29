// Log ingestion routes: the cloud JSON batch, OTLP/HTTP logs (cloud and
// desktop shape share one path) and the desktop legacy batch. Bodies stay raw
// bytes here; decoding happens in the worker pool.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  encodeExportLogsResponse, exportLogsResponseJson, UnsupportedMediaTypeError, PayloadTooLargeError,
  INGEST_ROUTES, type IngestRequest, type IngestRoute, type IngestService, type DecodeFailure,
} from '../../ingest/index.ts'
import { BATCH_DOCS, LEGACY_DOCS, OTLP_DOCS } from '../openapi/ingest-docs.ts'
import type { Sql } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { canReach } from '../../workspace/index.ts'
import { BadRequestError, ForbiddenError } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail, toDetails } from '../../core/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { RESOURCE_PARAMS } from '../../workspace/index.ts'
import { KnownResources, target } from './resources.ts'
import type { Contract } from '../edge/contract.ts'

export interface IngestRoutesOptions {
  db: Sql
  ingest: IngestService
  /** Largest request body as sent (compressed or not). */
  maxBodyBytes: number
  /** Which contract the shared OTLP path speaks on this listener. */
  otlpContract: Contract
}

export async function ingestRoutes(app: FastifyInstance, opts: IngestRoutesOptions): Promise<void> {
  const { db, ingest } = opts
  const resources = new KnownResources(db)
  const ensureResource = (ws: string, rid: string) => resources.ensure(ws, rid)

  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: opts.maxBodyBytes }, (_req, body, done) => done(null, body))

  // Refused before the body is read when ingest is already too busy for it: a flood costs no reads.
  app.addHook('preParsing', async (req, _reply, payload) => {
    const length = Number(req.headers['content-length'])
    if (length > 0) ingest.admit(length, (req.headers['content-encoding'] ?? '').toLowerCase().trim() === 'gzip')
    return payload
  })

  // Each route declares here its contract and token rule (auth), who may reach it with a desktop grant
  // (access) and its kind (ingest: the decoder's route and the ingest metrics' label).
  const sender = (contract: Contract, kind: IngestRoute) => ({
    auth: { contract, scope: SCOPES.logsWrite, kinds: ['access', 'sender'] as const }, access: [SCOPES.logsWrite], ingest: kind,
  })

  // Bodies are decoded in worker threads, so no Fastify body schema: `openapi` documents them only.
  app.post('/v1/workspaces/:workspace_id/resources/:resource_id/logs', {
    config: { ...sender('cloud', INGEST_ROUTES.json), openapi: BATCH_DOCS }, schema: { params: RESOURCE_PARAMS },
  }, async (req) => {
    const { ws, rid } = target(req)
    await ensureResource(ws, rid)
    const out = await ingest.accept(request(req, INGEST_ROUTES.json, 'json', ws, rid, idempotencyKey(req, 'cloud')))
    if (!out.ok) throw failure(out, 'cloud')
    return { accepted: out.result.accepted }
  })

  app.post('/v1/workspaces/:workspace_id/resources/:resource_id/otlp/v1/logs', {
    config: { ...sender(opts.otlpContract, INGEST_ROUTES.otlp), openapi: OTLP_DOCS }, schema: { params: RESOURCE_PARAMS },
  }, async (req, reply) => {
    const { ws, rid } = target(req)
    const format = otlpFormat(req)
    await ensureResource(ws, rid)
    const out = await ingest.accept(request(req, INGEST_ROUTES.otlp, format, ws, rid, idempotencyKey(req, opts.otlpContract)))
    if (!out.ok) throw failure(out, opts.otlpContract)
    return otlpReply(reply, format, out.result.rejected, out.result.errorMessage)
  })

  app.post('/v1/logs', {
    config: { ...sender('desktop', INGEST_ROUTES.legacy), openapi: LEGACY_DOCS },
  }, async (req) => {
    const p = principalOf(req)
    const out = await ingest.accept(request(req, INGEST_ROUTES.legacy, 'json', p.workspaceId, ''), async (rid) => {
      // The legacy route needs an exact resource grant: an all-resources token is not one.
      if (!req.isOwner && (p.resourceIds === null || !canReach(p, rid))) {
        throw new ForbiddenError('logs:write on this route needs an exact grant for the resource')
      }
      await ensureResource(p.workspaceId, rid)
    })
    if (!out.ok) throw failure(out, 'desktop')
    return { accepted: out.result.accepted, resource_id: out.result.resourceId }
  })
}

function mediaType(req: FastifyRequest): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
}

function isGzip(req: FastifyRequest): boolean {
  const enc = (req.headers['content-encoding'] ?? 'identity').toLowerCase().trim()
  if (enc === 'gzip') return true
  if (enc === 'identity' || enc === '') return false
  throw new UnsupportedMediaTypeError(`Content-Encoding ${enc} (gzip and identity are accepted)`)
}

function otlpFormat(req: FastifyRequest): 'json' | 'protobuf' {
  const t = mediaType(req)
  if (t === 'application/x-protobuf' || t === 'application/protobuf') return 'protobuf'
  if (t === 'application/json') return 'json'
  throw new UnsupportedMediaTypeError(`Content-Type ${t || '(none)'} (application/x-protobuf or application/json)`)
}

// Printable ASCII without spaces, as the IETF Idempotency-Key draft's keys are (UUIDs, ULIDs, hashes).
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

/** The Idempotency-Key header ('' without one): same key and body within the duplicate window = the same events. */
function idempotencyKey(req: FastifyRequest, contract: Contract): string {
  const raw = req.headers['idempotency-key']
  if (raw === undefined) return ''
  if (typeof raw === 'string' && IDEMPOTENCY_KEY.test(raw)) return raw
  const msg = 'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces, given once'
  if (contract === 'cloud') throw new RequestInvalid([detail(['header', 'idempotency-key'], msg, 'string_pattern_mismatch')])
  throw new BadRequestError(msg)
}

function request(req: FastifyRequest, route: IngestRequest['route'], format: 'json' | 'protobuf', ws: string, rid: string, key = ''): IngestRequest {
  if (format === 'json' && route !== 'otlp' && mediaType(req) !== 'application/json') {
    throw new UnsupportedMediaTypeError(`Content-Type ${mediaType(req) || '(none)'} (application/json)`)
  }
  const body = req.body
  if (!(body instanceof Uint8Array) || body.byteLength === 0) throw new BadRequestError('the request has no body')
  return { route, format, gzip: isGzip(req), body, workspaceId: ws, resourceId: rid, idempotencyKey: key }
}

function failure(f: DecodeFailure, contract: Contract): Error {
  if (f.kind === 'tooLarge') return new PayloadTooLargeError(f.message)
  if (f.kind === 'invalid' && contract === 'cloud') return new RequestInvalid(toDetails(f.issues, 'body'))
  if (f.kind === 'malformed' && contract === 'cloud' && f.issues[0]?.keyword === 'json') {
    return new RequestInvalid(toDetails(f.issues, 'body'))
  }
  const where = f.issues[0]?.instancePath ? ` at ${f.issues[0].instancePath}` : ''
  return new BadRequestError(f.kind === 'invalid' ? `${f.issues[0]?.message ?? f.message}${where}` : f.message)
}

function otlpReply(reply: FastifyReply, format: 'json' | 'protobuf', rejected: number, message: string): unknown {
  if (format === 'json') return exportLogsResponseJson(rejected, message)
  reply.header('content-type', 'application/x-protobuf')
  return Buffer.from(encodeExportLogsResponse(rejected, message))
}
