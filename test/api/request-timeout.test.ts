// A request whose body (or headers) trickles in is cut: 408 in both contracts'
// shapes where a response can still be written, then the connection closes,
// within the configured time (Node checks every second). Many such
// connections at once do not stop an ordinary sender meanwhile.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import { startTestLookout } from '../helpers/lookout.ts'

const BODY_MS = 2000
const HEADERS_MS = 1000
const lk = await startTestLookout({ env: { LOOKOUT_BODY_TIMEOUT_MS: String(BODY_MS), LOOKOUT_HEADERS_TIMEOUT_MS: String(HEADERS_MS) } })
t.teardown(() => lk.stop())
const rid = await lk.resource('slow')
const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
const { hostname, port } = new URL(lk.url)

interface Slow { socket: Socket; received: string; closedAfterMs: Promise<number> }

/** Opens a connection that sends `head` at once and then one byte of `rest` every 200 ms. */
async function trickle(head: string, rest: string): Promise<Slow> {
  const socket = connect(Number(port), hostname)
  await once(socket, 'connect')
  const started = Date.now()
  const slow: Slow = { socket, received: '', closedAfterMs: new Promise((resolve) => socket.once('close', () => resolve(Date.now() - started))) }
  socket.setEncoding('utf8')
  socket.on('data', (d: string) => { slow.received += d })
  socket.on('error', () => undefined)
  socket.write(head)
  let i = 0
  const timer = setInterval(() => {
    if (socket.destroyed || i >= rest.length) return clearInterval(timer)
    socket.write(rest[i++] as string)
  }, 200)
  socket.once('close', () => clearInterval(timer))
  return slow
}

t.test('a body sent a byte at a time is cut with 408, while other senders are served', async (t) => {
  const body = JSON.stringify({ events: [{ message: 'never arrives whole' }] })
  const head = `POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${lk.token}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`
  const slow = await Promise.all(Array.from({ length: 100 }, () => trickle(head, body)))
  // While a hundred connections trickle, an ordinary request goes through.
  const ok = await lk.req('POST', path, { events: [{ message: 'served meanwhile' }] })
  t.equal(ok.status, 200, 'a normal sender is served')
  t.ok(slow.every((s) => !s.socket.destroyed), 'while the slow ones are still open')
  const closed = await Promise.all(slow.map((s) => s.closedAfterMs))
  const worst = Math.max(...closed)
  t.comment(`slow bodies closed after ${Math.min(...closed)}–${worst} ms (limit ${BODY_MS} ms, checked every 1000 ms)`)
  t.ok(worst < BODY_MS + 5000, 'every one closed soon after the limit, not left open')
  const first = slow[0] as Slow
  t.match(first.received, /^HTTP\/1\.1 408 /, '408 Request Timeout')
  const answer = JSON.parse(first.received.slice(first.received.indexOf('\r\n\r\n') + 4))
  t.equal(answer.detail[0].type, 'LOOKOUT_REQUEST_TIMEOUT', 'cloud shape')
  t.equal(answer.error.code, 'LOOKOUT_REQUEST_TIMEOUT', 'desktop shape')
  const rows = await lk.waitRows(rid, 1)
  t.same(rows.map((r) => r.message), ['served meanwhile'], 'nothing of the cut requests was stored')
})

t.test('headers sent a byte at a time are cut after the headers timeout', async (t) => {
  const head = `GET /v1/health HTTP/1.1\r\nhost: ${hostname}\r\n`
  const slow = await trickle('', head + 'x-slow: ' + 'y'.repeat(100) + '\r\n\r\n')
  const after = await slow.closedAfterMs
  t.comment(`slow headers closed after ${after} ms (limit ${HEADERS_MS} ms)`)
  t.ok(after < HEADERS_MS + 5000, 'closed soon after the limit')
  t.match(slow.received, /^HTTP\/1\.1 408 /)
})
