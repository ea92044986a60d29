// The one place errors become HTTP: coded errors of every stage, Ajv
// validation errors and Fastify's own errors, in the route's contract shape.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { contractOf } from './contract.ts'
import { detail, toDetails, whereOf, type DetailItem } from '../../core/index.ts'
import { INTERNAL } from '../errors.ts'

const RETRY_AFTER_SECONDS = '1'

const FASTIFY_STATUS: Record<string, number> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 413,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 415,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 400,
  FST_ERR_CTP_EMPTY_JSON_BODY: 400,
  FST_ERR_CTP_INVALID_JSON_BODY: 400,
}

export function errorHandler(err: FastifyError & { details?: DetailItem[]; retryAfter?: number }, req: FastifyRequest, reply: FastifyReply): void {
  const contract = contractOf(req)
  let status = err.statusCode ?? FASTIFY_STATUS[err.code] ?? 500
  let details: DetailItem[] | undefined = err.details
  let message = err.message
  let code = err.code ?? INTERNAL

  if (err.validation !== undefined) {
    details = toDetails(err.validation as never, whereOf(err.validationContext))
    status = contract === 'cloud' ? 422 : 400
    code = 'LOOKOUT_VALIDATION'
    message = details.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ')
  } else if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    // The cloud contract reports an undecodable JSON body as a 422 json_invalid item.
    status = contract === 'cloud' ? 422 : 400
    code = 'LOOKOUT_VALIDATION'
    details = [detail(['body'], `JSON decode error: ${err.message}`, 'json_invalid')]
    message = 'the body is not valid JSON'
  }
  // Overload is 429 on the cloud contract and 503 on the desktop one.
  if (code === 'LOOKOUT_INGEST_OVERLOADED' && contract === 'desktop') status = 503
  // 501, 502 (an upstream, e.g. the desktop's portal, refused) and 503 carry a coded, deliberate message;
  // other 5xx are failures whose detail stays in the log.
  if (status >= 500 && status !== 503 && status !== 501 && status !== 502) {
    req.log.error({ err }, 'request failed')
    message = 'internal error'
    code = code.startsWith('LOOKOUT_') ? code : INTERNAL
  }
  if (status === 429 || status === 503) reply.header('retry-after', String(err.retryAfter ?? RETRY_AFTER_SECONDS))
  reply.code(status)
  if (contract === 'cloud') {
    if (status === 422 && details !== undefined) {
      void reply.send({ detail: details })
      return
    }
    void reply.send({ detail: [{ loc: details?.[0]?.loc ?? [], msg: message, type: code }] })
    return
  }
  void reply.send({ error: { message, code } })
}
