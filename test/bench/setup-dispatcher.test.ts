// The harness's setup calls wait out a server's load shedding (503/429 with
// Retry-After) instead of failing the run; other answers pass through at once.
// A plain HTTP server stands in for a shedding one: it counts what arrives.
import t, { type Test } from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { setupDispatcher } from '../../bench/ingest/setup-dispatcher.ts'

type Answer = { status: number; retryAfter?: string }

async function serve(t: Test, answers: Answer[]): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => { body += c })
    req.on('end', () => {
      bodies.push(`${req.method} ${body}`)
      const a = answers[Math.min(bodies.length - 1, answers.length - 1)] as Answer
      if (a.retryAfter !== undefined) res.setHeader('retry-after', a.retryAfter)
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify({ n: bodies.length }))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies }
}

t.test('a POST shed with 503 and 429 is sent again, body intact, until it is taken', async (t) => {
  const s = await serve(t, [{ status: 503, retryAfter: '0' }, { status: 429, retryAfter: '0' }, { status: 201 }])
  const dispatcher = setupDispatcher()
  t.teardown(() => dispatcher.close())
  const res = await request(`${s.url}/r`, { method: 'POST', body: '{"name":"a"}', dispatcher })
  t.equal(res.statusCode, 201)
  t.same(await res.body.json(), { n: 3 })
  t.same(s.bodies, ['POST {"name":"a"}', 'POST {"name":"a"}', 'POST {"name":"a"}'])
})

t.test('a GET shed once is retried; other failures come back at once', async (t) => {
  const s = await serve(t, [{ status: 503, retryAfter: '0' }, { status: 200 }])
  const dispatcher = setupDispatcher()
  t.teardown(() => dispatcher.close())
  const ok = await request(`${s.url}/q`, { dispatcher })
  t.equal(ok.statusCode, 200)
  await ok.body.dump()
  t.equal(s.bodies.length, 2)

  for (const status of [400, 404, 500]) {
    const f = await serve(t, [{ status }, { status: 201 }])
    const res = await request(`${f.url}/r`, { method: 'POST', body: '{}', dispatcher })
    t.equal(res.statusCode, status, `${status} is the caller's to read`)
    t.same(await res.body.json(), { n: 1 })
    t.equal(f.bodies.length, 1, `${status} is not sent again`)
  }
})
