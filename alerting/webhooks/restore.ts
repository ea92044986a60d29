// Workspace restore (local-desktop-api.md, webhook states): after the service's
// data is restored, no earlier subscription may fire again with the old
// identity. Every subscription (and with it every pending delivery and its
// history) is cleared and the installation gets a fresh source identity
// (`source.instance_id`), in one transaction: receivers that deduplicate by
// (instance_id, id) can never confuse events of the restored copy with the
// original's, and the owner configures subscriptions anew (new secrets).
import { rotateServerSecret, type Database } from '../../core/index.ts'
import { instanceId } from '../../workspace/index.ts'

export const RESTORE_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['confirm'],
  properties: { confirm: { type: 'string', enum: ['restore'], description: 'the word restore: this clears every subscription' } },
} as const

export interface RestoreResult {
  cleared_subscriptions: number
  cancelled_deliveries: number
  previous_instance_id: string
  instance_id: string
  reconfiguration_required: true
}

export async function restoreWebhooks(db: Database): Promise<RestoreResult> {
  return db.transaction(async (tx) => {
    const previous = await instanceId(tx)
    const pending = await tx.query<{ n: string }>(`SELECT count(*)::text AS n FROM webhook_deliveries WHERE state = 'queued'`)
    // Deliveries and their attempts go with their subscription (ON DELETE CASCADE).
    const cleared = await tx.query('DELETE FROM webhook_subscriptions RETURNING id')
    await rotateServerSecret(tx, 'instance-id')
    return {
      cleared_subscriptions: cleared.rows.length,
      cancelled_deliveries: Number(pending.rows[0]?.n ?? 0),
      previous_instance_id: previous,
      instance_id: await instanceId(tx),
      reconfiguration_required: true,
    }
  })
}
