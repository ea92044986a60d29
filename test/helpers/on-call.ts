// Helpers for the on-call tests: a verified webhook destination routed to a
// resource (its verification code read from the local receiver), and a tcp
// check probing every second.
import { randomUUID } from 'node:crypto'
import { startTestLookout, type TestLookout } from './lookout.ts'
import { waitFor, type HttpReceiver } from '../alerting/alerts/receivers.ts'

/** A Lookout for the on-call tests: private (loopback) destinations allowed, each alert delivery tried once, toasts dropped. */
export function startOnCallLookout(env: Record<string, string> = {}): Promise<TestLookout> {
  return startTestLookout({
    env: { LOOKOUT_ALLOW_PRIVATE_DESTINATIONS: '1', ...env },
    deliveries: { alertRetry: { retries: 0, minTimeoutMs: 50, maxTimeoutMs: 50 }, onToast: () => undefined },
  })
}

const op = (operation: string, values: Record<string, unknown>) => ({ operation, values: { operation_id: randomUUID(), ...values } })

/** Saves a destination on the resource (routed at once), verifies it with the code `readCode` finds after the request; returns its id. */
export async function verifiedDestination(lk: TestLookout, rid: string, values: Record<string, unknown>, readCode: (since: number) => Promise<string>, seen: () => number): Promise<string> {
  const P = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/alerts`
  const saved = await lk.req('POST', P, op('save_destination', values))
  if (saved.status !== 200) throw new Error(`save: ${saved.status} ${JSON.stringify(saved.body)}`)
  const id = saved.body.destination.id as string
  const before = seen()
  const asked = await lk.req('POST', P, op('request_verification', { id }))
  if (asked.status !== 200) throw new Error(`request_verification: ${asked.status} ${JSON.stringify(asked.body)}`)
  const code = await readCode(before)
  const ok = await lk.req('POST', P, op('verify_destination', { id, code }))
  if (ok.status !== 200) throw new Error(`verify: ${ok.status} ${JSON.stringify(ok.body)}`)
  return id
}

/** A shared webhook destination for `path` on the receiver, routed to the resource and verified; returns its id. */
export async function verifiedWebhook(lk: TestLookout, rid: string, http: HttpReceiver, path: string): Promise<string> {
  return verifiedDestination(lk, rid, { channel: 'webhook', address: `${http.url}${path}`, label: path, shared: true },
    (since) => waitFor(() => http.on(path).slice(since).find((r) => r.json?.code !== undefined)?.json.code as string | undefined, `the code on ${path}`),
    () => http.on(path).length)
}

/** A tcp check on the resource probing 127.0.0.1:port every second; returns its id. */
export async function tcpCheck(lk: TestLookout, rid: string, port: number, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`, {
    name: `port ${port}`, kind: 'tcp', configuration: { host: '127.0.0.1', port, interval_seconds: 1, timeout_seconds: 1 }, ...extra,
  })
  if (r.status !== 200) throw new Error(JSON.stringify(r.body))
  return r.body.id
}
