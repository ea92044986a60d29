// Realistic OTLP log traffic encoded by the official OpenTelemetry serializers
// (an encoder we did not write), plus the same records as the cloud JSON batch
// and the desktop legacy batch. Message sizes follow a mix of kinds (short
// access lines, ~300-character application lines, ~4 KB stack traces);
// attribute counts and the number of OTel resources per request are shape
// parameters. Everything is reproducible from a seed.
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources'
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs'

const WORDS = 'request handled user cart checkout payment upstream latency retry cache miss hit order session token database query timeout connection pool worker'.split(' ')

export const MESSAGE_KINDS = { access: 'access', app: 'app', stack: 'stack' } as const
export type MessageKind = (typeof MESSAGE_KINDS)[keyof typeof MESSAGE_KINDS]

/** Relative weights of the message kinds in a request. */
export type MessageMix = Partial<Record<MessageKind, number>>

/** Named mixes; `mixed` is a web service: mostly access lines, some application lines, a few stack traces. */
export const MIXES = {
  app: { app: 1 },
  access: { access: 1 },
  stack: { stack: 1 },
  mixed: { access: 0.7, app: 0.25, stack: 0.05 },
} as const satisfies Record<string, MessageMix>
export type MixName = keyof typeof MIXES

export interface TrafficShape {
  records: number
  /** Target length in characters of an `app` message. */
  messageLength: number
  /** Attributes per record (8 realistic ones, then `extra.N` strings). */
  attributes: number
  /** Message kinds by weight; default all `app`. */
  mix?: MessageMix
  /** Distinct OTel resources (service/host attribute sets) per request; default 1. */
  resources?: number
}

export const DEFAULT_SHAPE: TrafficShape = { records: 1000, messageLength: 300, attributes: 8 }

const STACK_FRAMES = [
  'OrderService.checkout (/srv/app/src/orders/service.ts:{n}:17)',
  'async PaymentClient.charge (/srv/app/src/payments/client.ts:{n}:9)',
  'Layer.handle [as handle_request] (/srv/app/node_modules/express/lib/router/layer.js:95:5)',
  'next (/srv/app/node_modules/express/lib/router/route.js:{n}:13)',
  'Route.dispatch (/srv/app/node_modules/express/lib/router/route.js:114:3)',
  'Function.process_params (/srv/app/node_modules/express/lib/router/index.js:{n}:12)',
  'Pool.acquire (/srv/app/node_modules/pg-pool/index.js:{n}:21)',
  'process.processTicksAndRejections (node:internal/process/task_queues:105:5)',
  'async Promise.all (index {n})',
  'CartRepository.load (/srv/app/src/cart/repository.ts:{n}:30)',
]

/** A small xorshift generator: fast, reproducible, good enough for traffic. */
export class Rand {
  #x: number
  constructor(seed: number) {
    this.#x = (seed * 2654435761) >>> 0 || 1
  }

  int(n: number): number {
    let x = this.#x
    x = (x ^ (x << 13)) >>> 0
    x = (x ^ (x >>> 17)) >>> 0
    x = (x ^ (x << 5)) >>> 0
    this.#x = x
    return x % n
  }

  /** Uniform in [0, 1). */
  unit(): number {
    return this.int(1_000_000) / 1_000_000
  }

  hex(n: number): string {
    let s = ''
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[this.int(16)]
    return s
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)] as T
  }
}

/** Picks a kind by weight. Weights need not sum to 1; unknown or zero weights are skipped. */
export function pickKind(mix: MessageMix, u: number): MessageKind {
  let total = 0
  for (const k of Object.values(MESSAGE_KINDS)) total += Math.max(0, mix[k] ?? 0)
  if (!(total > 0)) return 'app'
  let acc = 0
  for (const k of Object.values(MESSAGE_KINDS)) {
    acc += Math.max(0, mix[k] ?? 0) / total
    if (u < acc) return k
  }
  return 'stack'
}

export function makeMessage(kind: MessageKind, rand: Rand, seed: number, n: number, appLength: number, sec: number): string {
  if (kind === 'access') {
    const status = rand.pick([200, 200, 200, 201, 204, 301, 404, 500])
    const path = rand.pick(['/api/v1/orders/' + rand.int(100000), '/api/v1/cart', '/healthz', '/static/app.' + rand.hex(8) + '.js', '/api/v1/users/' + rand.int(5000) + '/profile'])
    return `10.0.${rand.int(250)}.${rand.int(250)} - - [${new Date(sec * 1000).toISOString()}] "${rand.pick(['GET', 'GET', 'POST', 'PUT'])} ${path} HTTP/1.1" ${status} ${rand.int(60000)} "-" "Mozilla/5.0 (X11; Linux x86_64)" rt=${(rand.int(2000) / 1000).toFixed(3)}`
  }
  if (kind === 'stack') {
    let s = `Error: upstream payment provider failed for order ${rand.int(1_000_000)} (attempt ${rand.int(3) + 1}) id=${rand.hex(12)} seed=${seed} n=${n}\n`
    const depth = 40 + rand.int(30)
    for (let i = 0; i < depth; i++) s += '    at ' + rand.pick(STACK_FRAMES).replace('{n}', String(1 + rand.int(400))) + '\n'
    return s + 'Caused by: ECONNRESET: socket hang up'
  }
  let message = `${rand.pick(WORDS)} id=${rand.hex(12)} seed=${seed} n=${n} `
  while (message.length < appLength) message += rand.pick(WORDS) + (rand.int(5) === 0 ? `=${rand.int(100000)} ` : ' ')
  return message
}

/** One export request's records; `seed` makes it reproducible and distinct. */
export function makeRecords(seed: number, shape: TrafficShape = DEFAULT_SHAPE, nowMs = Date.now()): ReadableLogRecord[] {
  const rand = new Rand(seed)
  const mix = shape.mix ?? { app: 1 }
  const resourceCount = Math.max(1, shape.resources ?? 1)
  const resources: Resource[] = []
  for (let r = 0; r < resourceCount; r++) {
    const id = seed * resourceCount + r
    resources.push(resourceFromAttributes({ 'service.name': `svc-${id % 50}`, 'service.version': '2.14.1', 'host.name': `ip-10-0-${id % 250}-17.internal` }))
  }
  const scope = { name: '@acme/logger', version: '3.2.0' }
  const logs: ReadableLogRecord[] = []
  const sec = Math.floor(nowMs / 1000)
  for (let i = 0; i < shape.records; i++) {
    const kind = pickKind(mix, rand.unit())
    const message = makeMessage(kind, rand, seed, i, shape.messageLength, sec)
    const level = kind === 'stack' ? 5 : rand.int(6)
    const attributes: Record<string, string | number | boolean | Record<string, unknown>> = {
      'http.request.method': rand.pick(['GET', 'POST', 'PUT']),
      'http.route': '/api/v1/orders/{id}/items',
      'http.response.status_code': rand.pick([200, 201, 404, 500]),
      duration_ms: rand.int(100000) / 100,
      'user.id': `u-${rand.hex(8)}`,
      'cache.hit': rand.int(2) === 0,
      'net.peer': { name: `db-${rand.int(4)}.internal`, port: 5432 },
      'retry.count': rand.int(3),
    }
    // Fewer than 8 asked for: keep the first ones.
    const keys = Object.keys(attributes)
    for (let a = shape.attributes; a < keys.length; a++) delete attributes[keys[a] as string]
    for (let a = 8; a < shape.attributes; a++) attributes[`extra.${a}`] = rand.hex(6)
    logs.push({
      hrTime: [sec, rand.int(1e9)],
      hrTimeObserved: [sec, rand.int(1e9)],
      resource: resources[i % resourceCount] as Resource,
      instrumentationScope: scope,
      severityNumber: [5, 9, 9, 9, 13, 17][level] as number,
      severityText: ['DEBUG', 'INFO', 'INFO', 'INFO', 'WARN', 'ERROR'][level] as string,
      body: message,
      attributes,
      droppedAttributesCount: 0,
      spanContext: { traceId: rand.hex(32), spanId: rand.hex(16), traceFlags: 1 },
    } as unknown as ReadableLogRecord)
  }
  return logs
}

export function encodeProtobuf(records: ReadableLogRecord[]): Uint8Array {
  return ProtobufLogsSerializer.serializeRequest(records) as Uint8Array
}

export function encodeJson(records: ReadableLogRecord[]): Uint8Array {
  return JsonLogsSerializer.serializeRequest(records) as Uint8Array
}

function isoOf(r: ReadableLogRecord): string {
  const [sec, ns] = r.hrTime
  return new Date(sec * 1000).toISOString().slice(0, 19) + '.' + String(ns).padStart(9, '0') + 'Z'
}

function recordAttributes(r: ReadableLogRecord): Record<string, unknown> {
  return { ...(r.attributes as Record<string, unknown>) }
}

/** The records as a cloud JSON batch (`POST .../resources/{id}/logs`): at most 1000 events. */
export function encodeJsonBatch(records: ReadableLogRecord[]): Uint8Array {
  const events = records.map((r) => ({
    message: String(r.body),
    timestamp: isoOf(r),
    severity: r.severityText ?? 'INFO',
    source: String(r.resource.attributes['service.name'] ?? ''),
    attributes: recordAttributes(r),
    trace_id: r.spanContext?.traceId ?? '',
    span_id: r.spanContext?.spanId ?? '',
  }))
  return Buffer.from(JSON.stringify({ events }))
}

const LEGACY_SEVERITY: Record<number, string> = { 5: 'debug', 9: 'info', 13: 'warning', 17: 'error', 21: 'critical' }

/**
 * The records as a desktop legacy batch (`POST /v1/logs`): at most 100 events,
 * messages cut to 16000 characters. Event ids are `idPrefix` plus the index,
 * so a caller can make them unique per request by patching the prefix.
 */
export function encodeLegacy(records: ReadableLogRecord[], resourceId: string, idPrefix: string): Uint8Array {
  const events = records.map((r, i) => ({
    id: `${idPrefix}-${i}`,
    timestamp: isoOf(r),
    severity: LEGACY_SEVERITY[r.severityNumber ?? 9] ?? 'info',
    message: String(r.body).slice(0, 16000),
    attributes: recordAttributes(r),
  }))
  return Buffer.from(JSON.stringify({ resource_id: resourceId, events }))
}
