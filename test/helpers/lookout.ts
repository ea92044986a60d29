// Starts a real Lookout (managed nats-server, chdb, PGlite) on a temporary data
// directory and a free loopback port, with a workspace and an all-powerful token.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from 'undici'
import { adminSocketPath, loadConfig, startLookout, type Lookout, type Role, type StartOptions } from '../../deploy/index.ts'
import { ALL_SCOPES, createToken, createWorkspace, registerResource } from '../../workspace/index.ts'

/** Where the server keeps its PGlite template: tests opening PGlite themselves start from it too. */
export const PGLITE_TEMPLATES = loadConfig({}).cacheDir

export interface TestLookout {
  lookout: Lookout
  url: string
  dataDir: string
  workspaceId: string
  /** Every scope, every resource. */
  token: string
  /** Creates a token on the test workspace. */
  token_(scopes: readonly string[], resources?: 'all' | string[], extra?: { kind?: 'access' | 'sender'; staffId?: number }): Promise<string>
  /** Registers a resource and returns its id. */
  resource(externalId?: string): Promise<string>
  /** fetch against the server with the all-powerful token unless headers say otherwise. */
  req(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>
  /** A request on the owner Unix socket (no token: the peer is the local owner). */
  ownerReq(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Record<string, unknown> }>
  /** Rows stored in ClickHouse for a resource, oldest first. */
  rows(resourceId: string): Promise<Record<string, unknown>[]>
  /** Waits until ClickHouse holds at least `n` rows for the resource, and returns them; throws, naming the shortfall, if it does not within `timeoutMs` (20 s). */
  waitRows(resourceId: string, n: number, timeoutMs?: number): Promise<Record<string, unknown>[]>
  stop(): Promise<void>
}

export interface TestLookoutOptions {
  env?: Record<string, string>
  roles?: Role[]
  dataDir?: string
  keepData?: boolean
  /** Delivery worker options of the monitor role (toast sink, resolver, retry tuning). */
  deliveries?: StartOptions['deliveries']
}

export async function startTestLookout(options: TestLookoutOptions = {}): Promise<TestLookout> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'lookout-test-'))
  const config = loadConfig({ LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '2', LOOKOUT_LOADER_FLUSH_MS: '100',
    // Load shedding on event-loop delay would make tests flaky on a busy machine; tests of it set it.
    LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0', ...options.env })
  const lookout = await startLookout(config, { roles: options.roles, logger: false, deliveries: options.deliveries })
  const ws = (await lookout.db.query<{ id: string }>('SELECT id FROM workspaces ORDER BY created_at LIMIT 1')).rows[0]?.id
    ?? (await createWorkspace(lookout.db, 'test')).id
  const { token } = await createToken(lookout.db, { workspaceId: ws, scopes: ALL_SCOPES, resources: 'all', name: 'test', staffId: 1 })
  const url = lookout.url
  const t: TestLookout = {
    lookout, url, dataDir, workspaceId: ws, token,
    async token_(scopes, resources = 'all', extra = {}) {
      return (await createToken(lookout.db, { workspaceId: ws, scopes, resources, kind: extra.kind, staffId: extra.staffId })).token
    },
    async resource(externalId = `res-${Math.random().toString(36).slice(2)}`) {
      return (await registerResource(lookout.db, ws, { external_id: externalId, name: externalId })).resource.id
    },
    async req(method, path, body, headers = {}) {
      const h: Record<string, string> = { authorization: `Bearer ${token}`, ...headers }
      let payload: string | Uint8Array | undefined
      if (body instanceof Uint8Array) payload = body
      else if (typeof body === 'string') payload = body
      else if (body !== undefined) {
        payload = JSON.stringify(body)
        h['content-type'] ??= 'application/json'
      }
      for (const [k, v] of Object.entries(h)) if (v === '') delete h[k]
      const res = await fetch(url + path, { method, headers: h, body: payload })
      const text = await res.text()
      let parsed: unknown = text
      try {
        parsed = text === '' ? undefined : JSON.parse(text)
      } catch {
        // not JSON
      }
      return { status: res.status, body: parsed, headers: res.headers }
    },
    async ownerReq(method, path, body, headers = {}) {
      const client = new Client('http://localhost', { socketPath: adminSocketPath(dataDir) })
      try {
        const h: Record<string, string> = { ...headers }
        if (body !== undefined) h['content-type'] ??= 'application/json'
        const res = await client.request({ method: method as 'GET', path, headers: h, body: body === undefined ? undefined : JSON.stringify(body) })
        const text = await res.body.text()
        let parsed: unknown = text
        try {
          parsed = text === '' ? undefined : JSON.parse(text)
        } catch {
          // not JSON
        }
        return { status: res.statusCode, body: parsed, headers: res.headers }
      } finally {
        await client.close()
      }
    },
    async rows(resourceId) {
      const r = await lookout.store.query<Record<string, unknown>>(
        `SELECT *, toString(timestamp) AS ts_text, toString(toUnixTimestamp64Nano(timestamp)) AS ts_ns FROM ${lookout.store.database}.logs WHERE resource_id = {rid:UUID} ORDER BY timestamp, event_id`,
        { rid: resourceId })
      return r.rows
    },
    async waitRows(resourceId, n, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const rows = await t.rows(resourceId)
        if (rows.length >= n) return rows
        // Fails here, naming the shortfall, rather than in the caller's later checks.
        if (Date.now() > deadline) throw new Error(`waitRows: ${rows.length} of ${n} rows of resource ${resourceId} stored after ${timeoutMs} ms`)
        await new Promise((r) => setTimeout(r, 100))
      }
    },
    async stop() {
      await lookout.stop()
      if (options.keepData !== true && options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true })
    },
  }
  return t
}

/** The secret part of `lkt_<id>_<secret>`; the secret is base64url and may itself hold `_`. */
export function tokenSecret(token: string): string {
  const at = token.indexOf('_', 'lkt_'.length)
  if (!token.startsWith('lkt_') || at < 0 || at === token.length - 1) throw new Error(`not a token: ${token.slice(0, 8)}…`)
  return token.slice(at + 1)
}

/**
 * The server sheds load with 503 LOOKOUT_OVERLOADED when its event loop lags (a busy test
 * machine); this makes `lk.req` retry such answers (up to 40 times, 250 ms apart) so a
 * test's assertions see the route's own answer. Desktop-contract routes only shed with 503.
 */
export function retryWhenShed(lk: TestLookout): void {
  const plainReq = lk.req.bind(lk)
  lk.req = async (...args) => {
    for (let i = 0; ; i++) {
      const r = await plainReq(...args)
      if (r.status !== 503 || r.body?.error?.code !== 'LOOKOUT_OVERLOADED' || i === 40) return r
      await new Promise((ok) => setTimeout(ok, 250))
    }
  }
}
