// Per-kind configuration: one strict JSON schema each (unknown keys refused,
// defaults filled in), plus the checks a schema cannot express. Each kind
// declares its keys and its own checks (probes/registry.ts lists them); the
// timing keys and the checks common to every kind are here. Problems come back
// in Ajv's error shape so the api edge renders them like its own.
import { Ajv } from 'ajv'
import { createSecureContext } from 'node:tls'
import { TIMING, clip, issue, type ConfigIssue } from './config-parts.ts'
import { DEFAULT_TIMEOUT_SECONDS, type Kind } from './kinds.ts'
import type { KindDeclaration } from './probes/kind.ts'
import { KIND_DECLARATIONS } from './probes/registry.ts'

export type { ConfigIssue }

export interface CheckConfig {
  /** The configuration as stored and shown: defaults filled in. */
  stored: Record<string, unknown>
  intervalMs: number
  timeoutMs: number
  /** Heartbeat grace; 0 for other kinds. */
  graceMs: number
}

export type ConfigResult = { ok: true; config: CheckConfig } | { ok: false; issues: ConfigIssue[] }

/** A kind's whole schema: the timing keys first (no timeout for a passive kind), then its own; nothing else. */
function schemaOf(d: KindDeclaration): object {
  const timing = d.passive === undefined ? TIMING : { interval_seconds: TIMING.interval_seconds }
  return { type: 'object', additionalProperties: false, required: [...(d.required ?? [])], properties: { ...timing, ...d.properties } }
}

/** The schemas and the configuration check of a list of kinds (the registry's, or a test's own). */
export function configParser(declarations: readonly KindDeclaration[]) {
  const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: true, verbose: true })
  const schemas: Record<string, object> = Object.fromEntries(declarations.map((d) => [d.name, schemaOf(d)]))
  const kinds = new Map(declarations.map((d) => [d.name, { d, validate: ajv.compile(schemas[d.name]!) }]))

  /** Validates and normalizes a kind's configuration; the input is not modified. */
  function parse(kind: string, input: unknown): ConfigResult {
    const k = kinds.get(kind)
    if (k === undefined) throw new Error(`no declaration of the probe kind ${kind}`)
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      return { ok: false, issues: [{ instancePath: '', keyword: 'type', params: { type: 'object' }, message: 'must be object', data: input }] }
    }
    const c = structuredClone(input) as Record<string, unknown>
    const { d, validate } = k
    if (!validate(c)) {
      return { ok: false, issues: (validate.errors ?? []).map((e) => ({ instancePath: e.instancePath, keyword: e.keyword, params: e.params, message: e.message, data: clip(e.data) })) }
    }
    const issues: ConfigIssue[] = []
    const interval = c.interval_seconds as number
    if (d.passive === undefined) {
      if (c.timeout_seconds === undefined) c.timeout_seconds = Math.min(DEFAULT_TIMEOUT_SECONDS, interval)
      if ((c.timeout_seconds as number) > interval) issues.push(issue('/timeout_seconds', 'timeout_seconds must not exceed interval_seconds', c.timeout_seconds))
    }
    if (d.check !== undefined) issues.push(...d.check(c))
    // Through a tunnel the driver dials a local socket, so the certificate cannot be checked against the host name.
    if (c.ssh === true && c.tls === 'verify') issues.push(issue('/tls', 'tls verify is not available through an SSH tunnel: use require (the tunnel itself is encrypted to a pinned host key)', c.tls))
    if (typeof c.ca === 'string') {
      try {
        createSecureContext({ ca: c.ca })
      } catch {
        issues.push(issue('/ca', 'ca must be one or more PEM certificates'))
      }
    }
    if (issues.length > 0) return { ok: false, issues }
    const timeoutMs = d.passive === undefined ? Math.round((c.timeout_seconds as number) * 1000) : 0
    const graceMs = d.passive === undefined ? 0 : d.passive.graceMs(c)
    return { ok: true, config: { stored: c, intervalMs: interval * 1000, timeoutMs, graceMs } }
  }
  return { schemas, parse }
}

const PARSER = configParser(KIND_DECLARATIONS)

export const CONFIG_SCHEMAS: Readonly<Record<Kind, object>> = PARSER.schemas as Record<Kind, object>

/** Validates and normalizes a kind's configuration; the input is not modified. */
export function parseConfig(kind: Kind, input: unknown): ConfigResult {
  return PARSER.parse(kind, input)
}

/** How long an observation stays fresh: past it, the next one starts the confirmation over. */
export function staleAfterMs(intervalMs: number, timeoutMs: number, graceMs: number): number {
  return 2 * intervalMs + timeoutMs + graceMs + 1000
}
