// The requests a scenario sends: templates encoded once per run with the
// official OpenTelemetry serializers (or as the JSON and legacy batches), each
// send made unique by its nonce, spread over the run's resources.
import { randomBytes } from 'node:crypto'
import {
  encodeJson, encodeJsonBatch, encodeLegacy, encodeProtobuf, makeRecords, type TrafficShape,
} from '../lib/traffic.ts'
import { makeTemplate, NONCE_PLACEHOLDER, renderBody, SENTINEL_OBSERVED, SENTINEL_TIME, type BodyTemplate } from '../lib/payload.ts'
import type { Scenario } from './options.ts'
import type { OutgoingRequest, RequestSource } from './sender.ts'

export interface TrafficPlan {
  scenario: Scenario
  shape: TrafficShape
  workspaceId: string
  resources: readonly string[]
  /** Bearer token of the cloud and OTLP routes. */
  token: string
  /** Bearer token of the legacy route (it needs an exact grant for each resource). */
  legacyToken: string
  /** Templates to encode; default: as many as fit in `templateBytes`, 8 to 128. */
  templates?: number
  templateBytes?: number
}

/** Encodes one template; `k` picks its records (and its resource on the legacy route). */
export function encodeTemplate(plan: TrafficPlan, k: number, nowMs: number): BodyTemplate {
  const records = makeRecords(k + 1, plan.shape, nowMs)
  const last = records[records.length - 1] as unknown as { body: string; hrTime: readonly [number, number]; hrTimeObserved: readonly [number, number] }
  // The last record is the freshness marker: a nonce in its message, unique per send, and the send
  // time as its timestamps, so a search for it can be confined to the last moments.
  last.body = `${last.body} nonce=${NONCE_PLACEHOLDER}`
  last.hrTime = SENTINEL_TIME
  last.hrTimeObserved = SENTINEL_OBSERVED
  const s = plan.scenario
  let bytes: Uint8Array
  if (s.route === 'otlp') bytes = s.format === 'protobuf' ? encodeProtobuf(records) : encodeJson(records)
  else if (s.route === 'json') bytes = encodeJsonBatch(records)
  else bytes = encodeLegacy(records, plan.resources[k % plan.resources.length] as string, NONCE_PLACEHOLDER)
  return makeTemplate(bytes, records.length, s.gzip)
}

/** Encodes the run's templates; `onProgress(done, total)` after each. */
export function encodeTemplates(plan: TrafficPlan, onProgress?: (done: number, total: number) => void): BodyTemplate[] {
  const now = Date.now()
  const first = encodeTemplate(plan, 0, now)
  let total = plan.templates ?? Math.min(128, Math.max(8, Math.floor((plan.templateBytes ?? 64 * 1024 * 1024) / first.plain.length)))
  // Legacy bodies name their resource: give every resource a template.
  if (plan.scenario.route === 'legacy') total = Math.max(total, Math.min(plan.resources.length, 1000))
  const out = [first]
  onProgress?.(1, total)
  for (let k = 1; k < total; k++) {
    out.push(encodeTemplate(plan, k, now))
    onProgress?.(k + 1, total)
  }
  return out
}

export class TrafficSource implements RequestSource {
  readonly templates: readonly BodyTemplate[]
  readonly #plan: TrafficPlan
  readonly #runId: string
  readonly #targets: { path: string; headers: Record<string, string>; resourceId: string }[]
  #counter = 0

  constructor(plan: TrafficPlan, templates: readonly BodyTemplate[]) {
    if (templates.length === 0) throw new Error('no templates')
    this.#plan = plan
    this.templates = templates
    // Nonces are unique across runs too: the legacy route remembers event ids for the whole retention.
    this.#runId = randomBytes(4).toString('hex')
    const s = plan.scenario
    const contentType = s.route === 'otlp' && s.format === 'protobuf' ? 'application/x-protobuf' : 'application/json'
    const base = (token: string): Record<string, string> => ({
      authorization: `Bearer ${token}`,
      'content-type': contentType,
      ...(s.gzip ? { 'content-encoding': 'gzip' } : {}),
    })
    const ws = plan.workspaceId
    if (s.route === 'legacy') {
      // The body names the resource; one route for all.
      this.#targets = templates.map((_, k) => ({ path: '/v1/logs', headers: base(plan.legacyToken), resourceId: plan.resources[k % plan.resources.length] as string }))
    } else {
      this.#targets = plan.resources.map((rid) => ({
        path: s.route === 'otlp' ? `/v1/workspaces/${ws}/resources/${rid}/otlp/v1/logs` : `/v1/workspaces/${ws}/resources/${rid}/logs`,
        headers: base(plan.token),
        resourceId: rid,
      }))
    }
  }

  get eventsPerRequest(): number {
    return this.templates[0]?.records ?? 0
  }

  /** A fresh nonce: run id and a counter, 16 hex digits. */
  nextNonce(): string {
    const n = this.#counter++
    return this.#runId + (n >>> 0).toString(16).padStart(8, '0')
  }

  request(i: number): OutgoingRequest {
    const k = i % this.templates.length
    const t = this.templates[k] as BodyTemplate
    const target = this.#plan.scenario.route === 'legacy' ? this.#targets[k] : this.#targets[i % this.#targets.length]
    const nonce = this.nextNonce()
    const timeMs = Date.now()
    const { path, headers, resourceId } = target as { path: string; headers: Record<string, string>; resourceId: string }
    return { path, headers, body: renderBody(t, nonce, timeMs), events: t.records, nonce, resourceId, timeMs }
  }
}
