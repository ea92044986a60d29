// A request's identity, which every dedup layer shares (Nats-Msg-Id, the rows'
// batch and event ids, the loader's lookups, the insert token): a retry must
// be the same events and a repeat new ones.
// - With an Idempotency-Key, the key and the body name the request: the same
//   key and body again are the same events, whatever the times (the service
//   refuses the key with another body within the window; past it, another body
//   under the key is new events, never taken for the old ones by the loader).
// - Else the content names it when every record carries a sender time: the
//   same bytes again are a retry.
// - Else records took the receive time, and so does the identity: equal bytes
//   received at another time are new events (a blind retry of such a request
//   is stored twice; an Idempotency-Key makes it exactly once).
import { createHash } from 'node:crypto'

/** SHA-256 (hex) of what a request says: route, target and body. */
export function contentHash(route: string, workspaceId: string, resourceId: string, body: Uint8Array): string {
  return createHash('sha256').update(route).update(workspaceId).update(resourceId).update(body).digest('hex')
}

/** The base id (24 hex digits) of a request carrying an Idempotency-Key: its key and its content (contentHash). */
export function keyedBaseId(route: string, workspaceId: string, resourceId: string, key: string, content: string): string {
  return createHash('sha256').update('idempotency-key\0').update(route).update('\0').update(workspaceId)
    .update('\0').update(resourceId).update('\0').update(key).update('\0').update(content).digest('hex').slice(0, 24)
}

/** The base id of a request whose records took its receive time. */
export function receivedBaseId(content: string, receivedNs: string): string {
  return createHash('sha256').update(content).update('\0').update(receivedNs).digest('hex').slice(0, 24)
}
