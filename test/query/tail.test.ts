// The live tail over Server-Sent Events, against the real pipeline: filters,
// resuming with Last-Event-ID (from the ring, and from ClickHouse when the ring
// does not know the id), and a slow client being dropped instead of buffered.
import t from 'tap'
import { createServer, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import { TailHub, TailSession, parseLastEventId, parseTextQuery, type LogFilter, type TailSessionOptions } from '../../query/internal.ts'
import { rowSubject, tailSubjects } from '../../ingest/internal.ts'
import { buildApp, type AppOptions } from '../../api/index.ts'
import { objectRowLine } from '../helpers/object-row.ts'
import { startTestLookout } from '../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
for (let i = 0; i < 50 && (await lk.req('GET', '/v1/health')).status !== 200; i++) await sleep(200)
const ws = lk.workspaceId
const cloud = (rid: string) => `/v1/workspaces/${ws}/resources/${rid}/logs`

interface SseEvent { id: string; data: Record<string, any> }

/** A Server-Sent Events client over fetch that collects events as they come. */
async function openTail(path: string, headers: Record<string, string> = {}, base = lk.url) {
  const ac = new AbortController()
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${lk.token}`, ...headers }, signal: ac.signal })
  const events: SseEvent[] = []
  const wake: { fn: (() => void) | null } = { fn: null }
  let ended = false
  const pump = (async () => {
    if (res.body === null || res.status !== 200) return
    const reader = res.body.getReader()
    const dec = new TextDecoder()
    let buf = ''
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        buf += dec.decode(value, { stream: true })
        let cut: number
        while ((cut = buf.indexOf('\n\n')) !== -1) {
          const block = buf.slice(0, cut)
          buf = buf.slice(cut + 2)
          let id = ''
          let data = ''
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) id = line.slice(4)
            else if (line.startsWith('data: ')) data += line.slice(6)
          }
          if (data !== '') events.push({ id, data: JSON.parse(data) })
          wake.fn?.()
        }
      }
    } catch {
      // aborted
    } finally {
      ended = true
      wake.fn?.()
    }
  })()
  return {
    status: res.status,
    headers: res.headers,
    body: (res.status === 200 ? null : await res.json()) as any,
    events,
    get ended() { return ended },
    /** Waits until `pred` holds on the events so far (or the stream ends, or 30 s pass: a loaded machine is slow). */
    async until(pred: (ev: SseEvent[]) => boolean): Promise<void> {
      const deadline = Date.now() + 30_000
      while (!pred(events) && !ended && Date.now() < deadline) {
        await new Promise<void>((r) => {
          wake.fn = r
          setTimeout(r, 250)
        })
      }
    },
    async close() {
      ac.abort()
      await pump
    },
  }
}

const post = async (rid: string, messages: (string | Record<string, unknown>)[]) => {
  const events = messages.map((m) => (typeof m === 'string' ? { message: m } : m))
  const r = await lk.req('POST', cloud(rid), { events })
  if (r.status !== 200) throw new Error(`ingest ${r.status} ${JSON.stringify(r.body)}`)
}
const messages = (ev: SseEvent[]) => ev.map((e) => e.data.message as string)

const ra = await lk.resource('tail-a')
const rb = await lk.resource('tail-b')

t.test('lines stream as they are acknowledged, filtered, with every field', async (t) => {
  const tail = await openTail(`${cloud(ra)}/tail?severity=WARN&q=disk`)
  t.equal(tail.status, 200)
  t.match(tail.headers.get('content-type'), /^text\/event-stream/)
  await post(ra, [
    { message: 'disk almost full', severity: 'WARN', attributes: { mount: '/var' } },
    { message: 'disk fine', severity: 'INFO' },
    { message: 'cpu hot', severity: 'ERROR' },
    { message: 'Disk failed', severity: 'FATAL', timestamp: `${new Date().toISOString().slice(0, 10)}T00:00:00.123456789Z` },
  ])
  await post(rb, [{ message: 'disk on another resource', severity: 'ERROR' }])
  await post(ra, [{ message: 'marker disk', severity: 'ERROR' }])
  await tail.until((ev) => messages(ev).includes('marker disk'))
  t.same(messages(tail.events), ['disk almost full', 'Disk failed', 'marker disk'])
  const first = tail.events[0] as SseEvent
  t.match(first.data, { resource_id: ra, severity: 'WARN', severity_number: 13, attributes: { mount: '/var' } })
  t.match(first.data.event_id, /^[0-9a-f]{48}$/)
  t.match((tail.events[1] as SseEvent).data.timestamp, /\.123456789Z$/, 'nanoseconds intact')
  t.match(first.id, /^[0-9a-f]{12}\.\d+\.\d+\.\d+$/)
  await tail.close()
})

t.test('desktop tail: its resource, or the whole workspace', async (t) => {
  const one = await openTail(`/v1/logs/tail?resource_id=${rb}&text=hello`)
  const all = await openTail('/v1/logs/tail?severity=error')
  t.equal(one.status, 200)
  await post(ra, [{ message: 'hello from a', severity: 'ERROR' }])
  await post(rb, [{ message: 'hello from b', severity: 'INFO' }, { message: 'goodbye from b', severity: 'ERROR' }])
  await one.until((ev) => ev.length >= 1)
  await all.until((ev) => ev.length >= 2)
  t.same(messages(one.events), ['hello from b'])
  t.same(messages(all.events), ['hello from a', 'goodbye from b'])
  await one.close()
  await all.close()
})

t.test('a malformed Last-Event-ID is refused', async (t) => {
  const c = await openTail(`${cloud(ra)}/tail`, { 'last-event-id': 'not-an-id' })
  t.equal(c.status, 422)
  t.same(c.body.detail[0].loc, ['header', 'last-event-id'])
  const d = await openTail(`/v1/logs/tail?resource_id=${ra}`, { 'last-event-id': '1.2.3' })
  t.equal(d.status, 400)
  t.type(d.body.error.message, 'string')
  const q = await openTail(`${cloud(ra)}/tail?limit=3`)
  t.equal(q.status, 422, 'paging parameters are not tail filters')
})

t.test('HEAD on a tail answers its headers at once, holding no stream', async (t) => {
  for (const path of [`${cloud(ra)}/tail`, `/v1/logs/tail?resource_id=${ra}`]) {
    const res = await fetch(lk.url + path, { method: 'HEAD', headers: { authorization: `Bearer ${lk.token}` }, signal: AbortSignal.timeout(10_000) })
    t.equal(res.status, 200, `HEAD ${path}`)
    t.match(res.headers.get('content-type'), /^text\/event-stream/)
  }
})

t.test('reconnecting with Last-Event-ID resumes from the ring without gaps or repeats', async (t) => {
  const first = await openTail(`${cloud(ra)}/tail?q=ring`)
  await post(ra, ['ring 1', 'ring 2', 'ring 3', 'ring 4'])
  await first.until((ev) => ev.length >= 4)
  await first.close()
  // Resume after the second line of a four-line message, with two more messages sent meanwhile.
  const lastSeen = (first.events[1] as SseEvent).id
  await post(ra, ['ring 5'])
  await post(ra, ['ring 6', 'not this one'])
  const second = await openTail(`${cloud(ra)}/tail?q=ring`, { 'last-event-id': lastSeen })
  await second.until((ev) => ev.length >= 4)
  await post(ra, ['ring 7'])
  await second.until((ev) => messages(ev).includes('ring 7'))
  t.same(messages(second.events), ['ring 3', 'ring 4', 'ring 5', 'ring 6', 'ring 7'])
  await second.close()
})

t.test('an id the ring does not know resumes from ClickHouse, then goes live without gaps', async (t) => {
  await post(ra, ['before the gap'])
  const received = (await waitQuery(`${cloud(ra)}?q=${encodeURIComponent('"before the gap"')}`))[0]?.received_at as string
  const receivedNs = BigInt(Date.parse(received.slice(0, 23) + 'Z')) * 1_000_000n + BigInt(received.slice(23, 29))
  // Lines sent while "away", stored before the reconnect.
  await post(ra, ['away 1', 'away 2'])
  await post(ra, ['away 3'])
  await waitQuery(`${cloud(ra)}?q=away`, 3)
  const foreignId = `000000000000.7.0.${receivedNs}`

  t.test('through the route (the ring holds the lines too)', async (t) => {
    const tail = await openTail(`${cloud(ra)}/tail?q=away`, { 'last-event-id': foreignId })
    t.equal(tail.status, 200)
    await tail.until((ev) => ev.length >= 3)
    await post(ra, ['away 4 live'])
    await tail.until((ev) => messages(ev).includes('away 4 live'))
    t.same(messages(tail.events).sort(), ['away 1', 'away 2', 'away 3', 'away 4 live'], 'each line once')
    t.match((tail.events[0] as SseEvent).id, /\.0\.0\.\d+$/, 'catch-up lines carry their receive time')
    await tail.close()
  })

  t.test('on a process whose ring started after the lines were sent', async (t) => {
    const hub = new TailHub({ connection: () => lk.lookout.broker.connection, subjects: tailSubjects(ws, ra) })
    const filter: LogFilter = { workspaceId: ws, resourceIds: [ra], startNs: null, endNs: null, minSeverity: null, text: parseTextQuery('away'), traceId: null }
    const server = await serveTail(hub, filter, {})
    const tail = await openTail('/', { 'last-event-id': foreignId }, server.url)
    await tail.until((ev) => ev.length >= 4)
    t.same(messages(tail.events).sort(), ['away 1', 'away 2', 'away 3', 'away 4 live'], 'from ClickHouse')
    await post(ra, ['away 5 live'])
    await tail.until((ev) => messages(ev).includes('away 5 live'))
    t.same(messages(tail.events).slice(4), ['away 5 live'], 'then live, once')
    await tail.close()
    hub.close()
    await server.close()
  })
})

t.test('a slow client is dropped instead of buffered', async (t) => {
  // Small bounds, so a client that stops reading falls behind quickly.
  const hub = new TailHub({ connection: () => lk.lookout.broker.connection, subjects: tailSubjects(ws, ra), maxBytes: 256 * 1024 })
  const filter: LogFilter = { workspaceId: ws, resourceIds: [ra], startNs: null, endNs: null, minSeverity: null, text: null, traceId: null }
  const server = await serveTail(hub, filter, { highWaterBytes: 16 * 1024, drainTimeoutMs: 500 })
  const sock: Socket = connect(server.port, '127.0.0.1')
  await once(sock, 'connect')
  sock.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n')
  await sleep(300)
  sock.pause() // never read again
  const big = 'x'.repeat(4000)
  for (let i = 0; i < 6 && server.sessions[0]?.endReason === ''; i++) {
    await post(ra, Array.from({ length: 1000 }, (_, j) => `${big} ${i}.${j}`))
  }
  await Promise.race([server.done[0], sleep(30_000)])
  t.equal(server.sessions[0]?.endReason, 'slow', 'dropped as too slow')
  t.ok((server.sessions[0]?.sent ?? 0) < 6000, `it was not sent everything (${server.sessions[0]?.sent})`)
  sock.destroy()
  hub.close()
  await server.close()
})

t.test('past its maximum of live tails a process answers 503 LOOKOUT_TAIL_BUSY', async (t) => {
  // A second app on the same components, allowed one tail.
  const app = await buildApp({
    ...(lk.lookout.appOptions as AppOptions), maxTails: 1, metrics: undefined, metricsToken: undefined, maxEventLoopDelayMs: 0,
  })
  t.teardown(() => app.close())
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  const first = await openTail(`${cloud(ra)}/tail`, {}, url)
  t.equal(first.status, 200)
  const busy = await openTail(`/v1/logs/tail?resource_id=${ra}`, {}, url)
  t.equal(busy.status, 503)
  t.equal(busy.body.error.code, 'LOOKOUT_TAIL_BUSY')
  t.ok(busy.headers.get('retry-after'), 'with Retry-After')
  const cloudBusy = await openTail(`${cloud(ra)}/tail`, {}, url)
  t.equal(cloudBusy.body.detail[0].type, 'LOOKOUT_TAIL_BUSY')
  await first.close()
  // The slot is freed once the server has seen the client go.
  let again = await openTail(`${cloud(ra)}/tail`, {}, url)
  for (let i = 0; i < 100 && again.status === 503; i++) {
    await sleep(100)
    again = await openTail(`${cloud(ra)}/tail`, {}, url)
  }
  t.equal(again.status, 200, 'a tail may open again after one ends')
  await again.close()
})

t.test('a line published as soon as a hub listens reaches it (the subscription is in place first)', async (t) => {
  // The hub listens on a connection of its own, as in the server: a subscription
  // and a publish on two connections are ordered only once the server has the subscription.
  const nc = await lk.lookout.broker.connectExtra('tail-test')
  t.teardown(() => nc.close())
  const rt = await lk.resource('tail-race')
  let reached = 0
  const rounds = 50
  for (let i = 0; i < rounds; i++) {
    const hub = new TailHub({ connection: () => nc, subjects: tailSubjects(ws, rt) })
    const session = () => undefined
    hub.acquire(session)
    await hub.listening
    const now = BigInt(Date.now()) * 1_000_000n
    const id = `race${String(i).padStart(21, '0')}`
    const row = objectRowLine({ workspaceId: ws, resourceId: rt, receivedNs: now, timestampNs: now, batchId: id, eventId: `race-${i}`, message: `race ${i}` })
    await lk.lookout.broker.publish(rowSubject(false, ws, rt), Buffer.from(row), id, 1)
    for (let waited = 0; hub.head < 1 && waited < 1_000; waited += 10) await sleep(10)
    if (hub.head >= 1) reached++
    hub.release(session)
    hub.close()
  }
  t.equal(reached, rounds, `every line published right after the hub listened is on it (${reached} of ${rounds})`)
})

t.test('open tails end when the server stops', async (t) => {
  // Left open: the file's teardown stops the server with it, and must not hang on it.
  const tail = await openTail(`${cloud(rb)}/tail`)
  t.equal(tail.status, 200)
  t.notOk(tail.ended)
})

/** The real hub and session behind a plain HTTP server (bounds the routes do not expose). */
async function serveTail(hub: TailHub, filter: LogFilter, o: Partial<TailSessionOptions>) {
  const sessions: TailSession[] = []
  const done: Promise<void>[] = []
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    const last = req.headers['last-event-id']
    const s = new TailSession(res, { hub, store: lk.lookout.store, filter, ...o })
    sessions.push(s)
    done.push(s.run(typeof last === 'string' ? parseLastEventId(last) : null).finally(() => res.end()))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as { port: number }).port
  return {
    port, sessions, done, url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections()
      server.close(() => r())
    }),
  }
}

/** The events a query returns, once at least `n` are there. */
async function waitQuery(path: string, n = 1): Promise<Record<string, unknown>[]> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const r = await lk.req('GET', path)
    if (r.status === 200 && r.body.events.length >= n) return r.body.events
    await sleep(100)
  }
  throw new Error(`no ${n} events for ${path}`)
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
