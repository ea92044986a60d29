// TCP probe: connect to host:port, optionally send a line and wait for an
// expected text in what the server answers (a banner or a reply).
import { connect, type NetConnectOpts, type Socket } from 'node:net'
import { HOST, PORT, SSH } from '../config-parts.ts'
import { PROBE_REASONS } from '../errors.ts'
import { declareKind, probeAnywhere } from './kind.ts'
import { elapsed, networkFailure, outcome, type Outcome, type ProbeContext, type ProbeTarget, type Runner } from './outcome.ts'
import { remainingMs, throughTunnel } from './tunnel.ts'

export interface TcpConfig { host: string; port: number; send?: string; expect?: string; ssh?: boolean }

const BANNER_BYTES = 64 * 1024

/** One connection attempt, resolved exactly once. */
class TcpAttempt {
  readonly #c: TcpConfig
  readonly #timeoutMs: number
  readonly #start = performance.now()
  readonly #socket: Socket
  readonly #resolve: (o: Outcome) => void
  readonly #timer: NodeJS.Timeout
  #received = ''
  #connectedMs: number | null = null
  #done = false

  constructor(c: TcpConfig, timeoutMs: number, resolve: (o: Outcome) => void, dial: NetConnectOpts = { host: c.host, port: c.port }) {
    this.#c = c
    this.#timeoutMs = timeoutMs
    this.#resolve = resolve
    this.#socket = connect(dial)
    this.#socket.setEncoding('utf8')
    this.#timer = setTimeout(this.#onTimeout.bind(this), timeoutMs)
    this.#socket.once('connect', this.#onConnect.bind(this))
    this.#socket.on('data', this.#onData.bind(this))
    this.#socket.once('error', this.#onError.bind(this))
    this.#socket.once('close', this.#onClose.bind(this))
  }

  #finish(o: Outcome): void {
    if (this.#done) return
    this.#done = true
    clearTimeout(this.#timer)
    this.#socket.destroy()
    this.#resolve(o)
  }

  #onConnect(): void {
    this.#connectedMs = elapsed(this.#start)
    if (this.#c.send !== undefined) this.#socket.write(this.#c.send)
    if (this.#c.expect === undefined) {
      this.#finish(outcome('up', PROBE_REASONS.ok, `connected in ${Math.round(this.#connectedMs)} ms`, this.#connectedMs, { connect_ms: this.#connectedMs }))
    }
  }

  #onData(chunk: string): void {
    if (this.#received.length < BANNER_BYTES) this.#received += chunk
    const expect = this.#c.expect
    if (expect !== undefined && this.#received.includes(expect)) {
      const ms = elapsed(this.#start)
      this.#finish(outcome('up', PROBE_REASONS.ok, `received ${JSON.stringify(expect)} in ${Math.round(ms)} ms`, ms, { connect_ms: this.#connectedMs }))
    }
  }

  #mismatch(why: string): Outcome {
    const seen = this.#received.slice(0, 120)
    return outcome('down', PROBE_REASONS.banner, `${why}; expected ${JSON.stringify(this.#c.expect)}, received ${JSON.stringify(seen)}`,
      elapsed(this.#start), { connect_ms: this.#connectedMs })
  }

  #onTimeout(): void {
    if (this.#connectedMs !== null) this.#finish(this.#mismatch(`no match within ${this.#timeoutMs} ms`))
    else this.#finish(outcome('down', PROBE_REASONS.timeout, `no connection within ${this.#timeoutMs} ms`, elapsed(this.#start)))
  }

  #onError(err: Error): void {
    this.#finish(networkFailure(err, this.#timeoutMs, elapsed(this.#start)))
  }

  #onClose(): void {
    if (this.#connectedMs !== null) this.#finish(this.#mismatch('the server closed the connection'))
    else this.#finish(outcome('down', PROBE_REASONS.network, 'the connection closed before it was established', elapsed(this.#start)))
  }
}

export class TcpRunner implements Runner {
  async run(target: ProbeTarget, ctx?: ProbeContext): Promise<Outcome> {
    const c = target.config as unknown as TcpConfig
    const tunnel = await throughTunnel(target, ctx, 'tcp')
    if (tunnel === null) return new Promise((resolve) => void new TcpAttempt(c, target.timeoutMs, resolve))
    if (!tunnel.ok) return tunnel.outcome
    // The SSH server has confirmed the channel to host:port: the connection is made; send/expect run through it.
    try {
      const o = await new Promise<Outcome>((resolve) => void new TcpAttempt(c, remainingMs(target, tunnel.tunnelMs), resolve, { path: tunnel.bridge.path }))
      return { ...o, details: { ...o.details, ssh_tunnel_ms: tunnel.tunnelMs } }
    } finally {
      tunnel.bridge.close()
    }
  }
}

export const TCP_KIND = declareKind({
  name: 'tcp',
  spec: probeAnywhere(256),
  properties: {
    host: HOST,
    port: PORT,
    send: { type: 'string', minLength: 1, maxLength: 4096 },
    expect: { type: 'string', minLength: 1, maxLength: 4096 },
    ssh: SSH,
  },
  required: ['host', 'port'],
  runner: () => new TcpRunner(),
})
