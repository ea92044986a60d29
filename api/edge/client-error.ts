// Errors Node raises before a request reaches a route (a body or headers that
// do not arrive in time, oversized headers, unparsable HTTP). The route, and
// so its contract, may be unknown here: the body carries both shapes, the
// cloud's `detail` list and the desktop's `error` object, with one code.
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { BAD_REQUEST_CODE } from '../../core/index.ts'
import { REQUEST_TIMEOUT } from '../errors.ts'

function answer(status: number, code: string, message: string): string {
  const body = JSON.stringify({ detail: [{ loc: [], msg: message, type: code }], error: { message, code } })
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
}

/** Fastify's clientErrorHandler (called with the instance as `this`): logs, answers where the socket can still be written to, then closes it. */
export function clientErrorHandler(headersTimeoutMs: number): (this: FastifyInstance, err: Error & { code?: string }, socket: Socket) => void {
  const timeout = answer(408, REQUEST_TIMEOUT, `the request headers did not arrive within ${headersTimeoutMs} ms`)
  const headerOverflow = answer(431, BAD_REQUEST_CODE, 'the request headers are too large')
  const malformed = answer(400, BAD_REQUEST_CODE, 'the request is not valid HTTP')
  return function (this: FastifyInstance, err, socket) {
    if (err.code === 'ECONNRESET' || socket.destroyed) return
    // As Fastify's own handler: mostly network noise, so at trace level.
    this.log.trace({ err }, 'client error')
    if (socket.writable) {
      socket.write(err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? timeout : err.code === 'HPE_HEADER_OVERFLOW' ? headerOverflow : malformed)
    }
    socket.destroy(err)
  }
}
