// Task creations in batches (the Lookout cloud's extension `POST …/tasks/batch`,
// offered as feature task-batch-v1): up to CREATE_BATCH creations per request,
// each with its own idempotency key (a batch resent after a lost answer is a
// replay of every creation in it, never a second task), and their canonical ids
// and numbers adopted in one local transaction. A portal without the feature
// gets one request per creation (push.ts).
import type { Database } from '../../core/index.ts'
import { PortalRefusal, portalCall } from './client.ts'
import { adoptTaskIds, type AdoptedTask } from './id-map.ts'
import { noteAttempt, settle, type OutboxOp } from './outbox.ts'
import type { PortalTask, PushContext } from './push-types.ts'
import { itemFieldsOf, TAXONOMY_FIELDS } from './task-fields.ts'

export const BATCH_FEATURE = 'task-batch-v1'
/** Creations per batch request (the cloud's limit, TASK_BATCH_MAX). */
export const CREATE_BATCH = 250
/**
 * Batches taken from the outbox at a time: each read sorts every pending
 * operation, so a backlog is read in fewer, larger steps (bench/portal README).
 */
export const BATCHES_PER_READ = 4
/**
 * Bytes of JSON per batch request: the cloud takes bodies up to 1 MiB, and 100
 * tasks with long descriptions can be more, so a batch is cut before it (an
 * item alone is far below it).
 */
export const CREATE_BATCH_BYTES = 768 * 1024

type ItemResult = { status: number; task?: PortalTask; detail?: { msg?: string }[] }

/** Of the next operations, the creations of tasks (the ones a batch carries). */
export async function batchableCreates(db: Database, ws: string, ops: readonly OutboxOp[]): Promise<Set<OutboxOp>> {
  const keys = ops.filter((o) => o.op === 'create').map((o) => o.item_key)
  if (keys.length === 0) return new Set()
  const r = await db.query<{ item_key: string }>(
    `SELECT item_key FROM portal_items WHERE workspace_id = $1 AND item_key = ANY($2::uuid[]) AND item_type = 'task'`, [ws, keys])
  const tasks = new Set(r.rows.map((x) => x.item_key))
  return new Set(ops.filter((o) => o.op === 'create' && tasks.has(o.item_key)))
}

/** Sends the creations in batches (CREATE_BATCH items and CREATE_BATCH_BYTES at most each) and settles each; returns how many the portal took. Throws PortalUnreachable. */
export async function pushCreateBatch(c: PushContext, ops: readonly OutboxOp[]): Promise<number> {
  const items = ops.map((op) => {
    const { archived: _a, deleted: _d, state: _s, blocked_reason: _b, ...fields } = op.payload
    if (!c.taxonomy) for (const f of TAXONOMY_FIELDS) delete fields[f]
    const item = { idempotency_key: op.idempotency_key, ...fields }
    return { op, item, bytes: Buffer.byteLength(JSON.stringify(item)) + 1 }
  })
  let n = 0
  for (const chunk of cutBatches(items, CREATE_BATCH_BYTES)) n += await sendBatch(c, chunk)
  return n
}

/** Consecutive runs of at most `maxItems` items and `max` bytes together (an item larger than that alone). */
export function cutBatches<T extends { bytes: number }>(items: readonly T[], max: number, maxItems = CREATE_BATCH): T[][] {
  const out: T[][] = []
  let chunk: T[] = []
  let bytes = 0
  for (const x of items) {
    if (chunk.length > 0 && (bytes + x.bytes > max || chunk.length === maxItems)) {
      out.push(chunk)
      chunk = []
      bytes = 0
    }
    chunk.push(x)
    bytes += x.bytes
  }
  if (chunk.length > 0) out.push(chunk)
  return out
}

/** One batch request, its answers adopted in one local transaction. */
async function sendBatch(c: PushContext, chunk: readonly { op: OutboxOp; item: Record<string, unknown> }[]): Promise<number> {
  const ops = chunk.map((x) => x.op)
  let results: ItemResult[]
  try {
    results = (await portalCall<{ items: ItemResult[] }>(c.target, 'POST', `/v1/workspaces/${c.portalWs}/tasks/batch`, { items: chunk.map((x) => x.item) }, { timeoutMs: 60_000 })).body.items
  } catch (err) {
    if (err instanceof PortalRefusal) throw err
    for (const op of ops) await noteAttempt(c.db, c.ws, op.seq, (err as Error).message)
    throw err
  }
  // Adopted in one transaction, one statement per table for the batch.
  const r = await c.db.query<{ item_key: string; local_id: string }>(
    'SELECT item_key, local_id FROM portal_items WHERE workspace_id = $1 AND item_key = ANY($2::uuid[])', [c.ws, ops.map((o) => o.item_key)])
  const localIds = new Map(r.rows.map((x) => [x.item_key, x.local_id]))
  const adopted: AdoptedTask[] = []
  const done: string[] = []
  const failed: { seq: string; state: 'conflict' | 'refused'; error: string }[] = []
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i] as OutboxOp
    const res = results[i]
    const oldId = localIds.get(op.item_key)
    if (res?.task !== undefined) {
      if (oldId !== undefined) {
        const t = res.task
        adopted.push({ itemKey: op.item_key, oldId, id: t.id, number: t.number, revision: t.revision, base: itemFieldsOf('task', t as never) })
      }
      c.touched?.add(res.task.id)
      done.push(op.seq)
    } else {
      failed.push({ seq: op.seq, state: res?.status === 409 ? 'conflict' : 'refused', error: (res?.detail ?? []).map((d) => d.msg).join('; ') || `the portal answered ${res?.status ?? 'nothing'}` })
    }
  }
  await c.db.transaction(async (tx) => {
    await adoptTaskIds(tx, c.ws, adopted)
    await tx.query(`UPDATE portal_outbox SET state = 'done', last_error = NULL, settled_at = now() WHERE workspace_id = $1 AND seq = ANY($2::bigint[])`, [c.ws, done])
    for (const f of failed) await settle(tx, c.ws, f.seq, f.state, f.error)
  })
  return done.length
}
