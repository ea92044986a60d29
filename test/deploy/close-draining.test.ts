// A server's draining close answers its requests in flight, then drops the
// connections that carry none: idle keep-alive ones, and ones that never sent a
// byte (a pooled client's or a browser's spare connection), which Node would
// otherwise keep until its headers timeout, a minute or more.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import Fastify from 'fastify'
import { Pool } from 'undici'
import { drainingClose } from '../../deploy/close-draining.ts'

t.test('a close waits for the request in flight, not for a connection that never spoke', async (t) => {
  const app = Fastify({ logger: false })
  let slowArrived: () => void = () => undefined
  const slowStarted = new Promise<void>((resolve) => { slowArrived = resolve })
  app.get('/slow', async () => {
    slowArrived()
    await new Promise((r) => setTimeout(r, 400))
    return { done: true }
  })
  app.get('/quick', async () => ({ quick: true }))
  const close = drainingClose(app)
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = new URL(url)

  // A keep-alive connection that has answered once and is now idle.
  const pool = new Pool(url, { connections: 1 })
  t.teardown(() => pool.destroy())
  const quick = await pool.request({ method: 'GET', path: '/quick' })
  t.equal(quick.statusCode, 200)
  await quick.body.dump()

  // A connection that never sends anything.
  const silent: Socket = connect(Number(port), '127.0.0.1')
  await new Promise<void>((resolve, reject) => silent.once('connect', resolve).once('error', reject))
  const silentClosed = new Promise<void>((resolve) => silent.once('close', () => resolve()))
  silent.on('error', () => undefined)

  const inFlight = fetch(`${url}/slow`)
  await slowStarted // the request is in the server's hands
  const t0 = Date.now()
  // Bounded, so that a close that hangs fails here instead of at the test's timeout.
  await Promise.race([close(), new Promise((r) => setTimeout(r, 10_000))])
  const took = Date.now() - t0
  const res = await inFlight
  t.equal(res.status, 200, 'the request in flight is answered')
  t.same(await res.json(), { done: true })
  t.ok(took >= 250, `the close waited for it (${took} ms)`)
  t.ok(took < 5_000, `and not for the silent connection (${took} ms)`)
  await silentClosed
  t.pass('the silent connection was closed')
})
