// Readiness: each dependency's check, the live report /v1/ready gives, and the
// gate that refuses traffic until the first time every dependency is ready.
// Choice (metrics/README.md, "Health, readiness and `lookout status`"): the listener opens as soon as the
// app is built, but an onRequest gate answers 503 + Retry-After on every route
// except the operational ones until one full check passes; the app's onReady
// runs that first check, so a healthy start never shows the gate. After that
// the gate stays open: a dependency lost later is reported by /v1/ready (a load
// balancer drains on it) and by each route's own errors, not by refusing all.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Broker, LogStore } from '../ingest/index.ts'
import type { DecoderPool } from '../ingest/index.ts'
import type { Sql } from '../core/index.ts'
import { NotReadyError } from './errors.ts'

export interface ReadinessCheck {
  name: string
  check(): Promise<boolean>
}

import { DEPENDENCY_STATES, type ReadinessReport } from '../core/index.ts'
export { DEPENDENCY_STATES, type ReadinessReport }

/** Longest a single check may take before it counts as unavailable. */
export const CHECK_TIMEOUT_MS = 2_000
/** How often a not-yet-ready server checks again by itself. */
const RECHECK_MS = 500

function withTimeout(p: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, ms, false)
    timer.unref()
  })
  return Promise.race([p.catch(() => false), timeout]).finally(() => clearTimeout(timer))
}

export class Readiness {
  readonly #checks: readonly ReadinessCheck[]
  readonly #timeoutMs: number
  #opened = false
  #last: ReadinessReport | null = null
  #running: Promise<ReadinessReport> | null = null
  #timer: NodeJS.Timeout | null = null
  readonly #listeners: ((r: ReadinessReport) => void)[] = []

  constructor(checks: readonly ReadinessCheck[], options: { timeoutMs?: number } = {}) {
    this.#checks = checks
    this.#timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS
  }

  /** True once every dependency has been ready at the same time (it stays true). */
  get opened(): boolean {
    return this.#opened
  }

  /** The last report, if a check has run. */
  get last(): ReadinessReport | null {
    return this.#last
  }

  get names(): string[] {
    return this.#checks.map((c) => c.name)
  }

  /** Called with every report (metrics). */
  onReport(fn: (r: ReadinessReport) => void): void {
    this.#listeners.push(fn)
  }

  /** Runs every check now (concurrent callers share one run). */
  check(): Promise<ReadinessReport> {
    this.#running ??= this.#run().finally(() => {
      this.#running = null
    })
    return this.#running
  }

  async #run(): Promise<ReadinessReport> {
    const states = await Promise.all(this.#checks.map(async (c) => {
      const ok = await withTimeout(Promise.resolve().then(() => c.check()), this.#timeoutMs)
      return [c.name, ok ? DEPENDENCY_STATES.ready : DEPENDENCY_STATES.unavailable] as const
    }))
    const ready = states.every(([, s]) => s === DEPENDENCY_STATES.ready)
    const report: ReadinessReport = { status: ready ? 'ready' : 'unavailable', dependencies: Object.fromEntries(states) }
    if (ready) this.#opened = true
    this.#last = report
    for (const fn of this.#listeners) fn(report)
    return report
  }

  /** Checks once, then keeps checking every RECHECK_MS until the gate opens. */
  async start(): Promise<void> {
    await this.check()
    if (!this.#opened) this.#schedule()
  }

  #schedule(): void {
    if (this.#timer !== null) return
    this.#timer = setTimeout(() => {
      this.#timer = null
      void this.check().then(() => {
        if (!this.#opened) this.#schedule()
      })
    }, RECHECK_MS)
    this.#timer.unref()
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
  }
}

export interface ReadinessDeps {
  broker: Broker
  store: LogStore
  db: Sql
  pool: DecoderPool
}

/** The four dependencies of an API process: NATS, ClickHouse, PostgreSQL and the decoder workers. */
export function readinessChecks(d: ReadinessDeps): ReadinessCheck[] {
  return [
    // A reconnecting connection is open but not connected: rtt() refuses then.
    { name: 'nats', check: async () => (await d.broker.connection.rtt()) >= 0 },
    { name: 'clickhouse', check: () => d.store.ping() },
    { name: 'postgresql', check: async () => (await d.db.query('SELECT 1 AS ok')).rows.length === 1 },
    // Idle, no worker need be running: ready once one has started and run a task.
    { name: 'workers', check: async () => d.pool.usable },
  ]
}

/** Routes served before readiness: probes, the contract, metrics, and the owner socket's admin routes. */
export function isAlwaysServed(url: string | undefined): boolean {
  if (url === undefined) return true // no route: the 404 handler answers
  return url === '/v1/health' || url === '/v1/ready' || url === '/metrics' || url === '/v1/openapi.json'
    || url.startsWith('/v1/docs') || url.startsWith('/admin/')
}

export interface GateOptions {
  readiness: Readiness
}

async function gatePlugin(app: FastifyInstance, opts: GateOptions): Promise<void> {
  const { readiness } = opts
  app.addHook('onReady', async () => {
    await readiness.start()
  })
  app.addHook('onClose', async () => {
    readiness.stop()
  })
  app.addHook('onRequest', async (req) => {
    if (readiness.opened || isAlwaysServed(req.routeOptions.url)) return
    throw new NotReadyError(Object.entries(readiness.last?.dependencies ?? {}).filter(([, s]) => s !== 'ready').map(([n]) => n).join(', ') || 'starting')
  })
}

export const readinessGate = fp(gatePlugin, { name: 'lookout-readiness-gate' })
