// Real local receivers for delivery tests: an HTTP server standing in for
// webhook / Slack / Discord / SMS-provider endpoints (answers scripted per
// path), and an SMTP server (smtp-server) that captures mail.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { createServer as createTcpServer, type AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface Received {
  method: string
  path: string
  headers: IncomingHttpHeaders
  raw: string
  json: any
  at: number
}

export type Answer = number | { status: number; headers?: Record<string, string>; body?: string }

export interface HttpReceiver {
  url: string
  port: number
  requests: Received[]
  /** Answers for a path, used in order; the last one repeats. Default 200. */
  script(path: string, answers: Answer[]): void
  on(path: string): Received[]
  /** Lets a request run the receiver's own logic (e.g. the webhook receiver helper). */
  handle(path: string, fn: (r: Received) => Promise<Answer>): void
  close(): Promise<void>
}

export async function startHttpReceiver(port = 0): Promise<HttpReceiver> {
  const requests: Received[] = []
  const scripts = new Map<string, Answer[]>()
  const handlers = new Map<string, (r: Received) => Promise<Answer>>()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      let json: unknown = null
      try {
        json = raw === '' ? null : JSON.parse(raw)
      } catch {
        json = null
      }
      const path = (req.url ?? '/').split('?')[0] as string
      const r: Received = { method: req.method ?? 'GET', path, headers: req.headers, raw, json, at: Date.now() }
      requests.push(r)
      const send = (a: Answer) => {
        const x = typeof a === 'number' ? { status: a } : a
        res.writeHead(x.status, x.headers ?? {})
        res.end(x.body ?? '')
      }
      const h = handlers.get(path)
      if (h !== undefined) {
        h(r).then(send, () => send(500))
        return
      }
      const s = scripts.get(path)
      send(s === undefined || s.length === 0 ? 200 : (s.length > 1 ? s.shift() as Answer : s[0] as Answer))
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()))
  const p = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${p}`,
    port: p,
    requests,
    script: (path, answers) => {
      scripts.set(path, [...answers])
    },
    on: (path) => requests.filter((r) => r.path === path),
    handle: (path, fn) => {
      handlers.set(path, fn)
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

export interface Mail {
  from: string
  to: string[]
  raw: string
}

export interface SmtpReceiver {
  port: number
  url: string
  mails: Mail[]
  /** Replies for RCPT TO of an address, used in order (then accepted): e.g. 451 (try later) or 550 (no such mailbox). */
  reject(address: string, codes: number[]): void
  close(): Promise<void>
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: Mail[] = []
  const rejections = new Map<string, number[]>()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const code = rejections.get(address.address)?.shift()
      if (code === undefined) return callback()
      callback(Object.assign(new Error(code >= 500 ? 'mailbox unavailable' : 'try again later'), { responseCode: code }))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.server.address() as AddressInfo).port
  return {
    port, url: `smtp://127.0.0.1:${port}`, mails,
    reject: (address, codes) => {
      rejections.set(address, [...codes])
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Polls until fn returns a truthy value (or throws after timeoutMs). */
export async function waitFor<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await fn()
    if (v) return v as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A loopback port with nothing listening on it (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()))
  const port = (s.address() as AddressInfo).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

/** Something that accepts TCP connections on a loopback port (and hangs up), so a tcp check there recovers; resolves to its close. */
export async function acceptingOn(port: number): Promise<() => Promise<void>> {
  const s = createTcpServer((socket) => socket.end())
  await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', () => resolve()))
  return () => new Promise<void>((resolve) => s.close(() => resolve()))
}
