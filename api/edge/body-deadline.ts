// How long a request body may take to arrive, counted from when this server
// starts reading it (not from its first byte: under load a request can wait
// for the event loop, and that wait is ours, not the sender's). A body that
// is not whole by then gets 408 in both contracts' shapes and its connection
// closed. Node's own requestTimeout stays as a backstop for everything else.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { REQUEST_TIMEOUT } from '../errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    bodyDeadline?: NodeJS.Timeout
  }
}

function hasBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length']
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined
}

function cut(req: FastifyRequest, reply: FastifyReply, ms: number): void {
  if (req.raw.complete || reply.raw.headersSent || req.raw.socket.destroyed) return
  const message = `the request body did not arrive whole within ${ms} ms`
  const body = JSON.stringify({ detail: [{ loc: ['body'], msg: message, type: REQUEST_TIMEOUT }], error: { message, code: REQUEST_TIMEOUT } })
  // Taken over from Fastify: its body parser will fail when the socket closes, with nobody left to answer.
  reply.hijack()
  reply.raw.writeHead(408, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' })
  reply.raw.end(body, () => req.raw.socket.destroy())
  req.log.info({ ms }, 'request body too slow: cut with 408')
}

export const bodyDeadline = fp(async (app: FastifyInstance, opts: { ms: number }) => {
  app.addHook('preParsing', async (req, reply, payload) => {
    if (hasBody(req)) req.bodyDeadline = setTimeout(cut, opts.ms, req, reply, opts.ms)
    return payload
  })
  const clear = async (req: FastifyRequest): Promise<void> => {
    if (req.bodyDeadline !== undefined) clearTimeout(req.bodyDeadline)
  }
  app.addHook('preValidation', clear)
  app.addHook('onResponse', clear)
  app.addHook('onRequestAbort', clear)
}, { name: 'lookout-body-deadline' })
