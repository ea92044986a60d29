// A sender in its own process, so that its requests stay in flight while the
// server's process is stalled: every `PRESSURE_INTERVAL_MS` it sends one cloud
// JSON batch and one desktop legacy batch (each event unique), and prints one
// JSON line per answer. SIGTERM: stop sending, wait for the answers, exit.
const env = (k: string): string => {
  const v = process.env[k]
  if (v === undefined) throw new Error(`${k} is not set`)
  return v
}
const base = env('PRESSURE_URL')
const interval = Number(env('PRESSURE_INTERVAL_MS'))
const events = Number(env('PRESSURE_EVENTS'))

interface Target {
  route: 'cloud' | 'desktop'
  path: string
  token: string
  body: (tag: string) => unknown
}
const targets: Target[] = [
  {
    route: 'cloud', path: env('PRESSURE_CLOUD_PATH'), token: env('PRESSURE_CLOUD_TOKEN'),
    body: (tag) => ({ events: Array.from({ length: events }, (_, i) => ({ message: `${tag} event ${i}` })) }),
  },
  {
    route: 'desktop', path: '/v1/logs', token: env('PRESSURE_DESKTOP_TOKEN'),
    body: (tag) => ({
      resource_id: env('PRESSURE_DESKTOP_RID'),
      events: Array.from({ length: events }, (_, i) => ({ id: `${tag}-${i}`, timestamp: new Date().toISOString(), severity: 'info', message: `${tag} event ${i}` })),
    }),
  },
]

let seq = 0
let stopping = false
const inFlight = new Set<Promise<void>>()

async function send(t: Target): Promise<void> {
  const tag = `${t.route}-${String(seq++).padStart(6, '0')}`
  const sentAt = Date.now()
  let line: Record<string, unknown>
  try {
    const res = await fetch(base + t.path, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(t.body(tag)),
      signal: AbortSignal.timeout(60_000),
    })
    const text = await res.text()
    line = { route: t.route, tag, status: res.status, retryAfter: res.headers.get('retry-after'), sentAt, doneAt: Date.now() }
    if (res.status !== 200) line.body = text.slice(0, 500)
  } catch (err) {
    line = { route: t.route, tag, status: 0, error: String(err), sentAt, doneAt: Date.now() }
  }
  process.stdout.write(JSON.stringify(line) + '\n')
}

process.on('SIGTERM', () => {
  stopping = true
})

while (!stopping) {
  for (const t of targets) {
    const p = send(t).finally(() => inFlight.delete(p))
    inFlight.add(p)
  }
  await new Promise((r) => setTimeout(r, interval))
}
await Promise.allSettled([...inFlight])
process.stdout.write(JSON.stringify({ done: true }) + '\n')
