// Assignment webhook benchmark (see README.md): (1) what queuing the delivery
// rows adds to a task change's transaction, against the same transaction
// without it; (2) how fast the delivery worker signs, sends and records
// deliveries to a loopback receiver, against raw undici POSTs of the same body.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, request } from 'undici'
import { PG_MIGRATIONS } from '../../deploy/index.ts'
import { WebhookWorker, enqueueWebhookDeliveries } from '../../alerting/internal.ts'
import { createWorkspace } from '../../workspace/index.ts'
import { migrate, openPglite, type Database } from '../../core/index.ts'
import { summarize } from '../lib/stats.ts'

const CHANGES = Number(process.env.BENCH_CHANGES ?? 2000)
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 2000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const fmt = (n: number, d = 1) => n.toFixed(d)

async function eventTx(db: Database, ws: string, withEnqueue: boolean): Promise<number> {
  const t0 = performance.now()
  await db.transaction(async (tx) => {
    const id = randomUUID()
    await tx.query(
      `INSERT INTO project_events (id, workspace_id, type, task_id, board_id, task_number, task_revision, assignment_revision,
         previous_assignee, assignee, origin, actor)
       VALUES ($1, $2, 'task.assignment.changed', $3, $4, 1, 2, 2, 7, 8, 'local', '{}'::jsonb)`, [id, ws, randomUUID(), randomUUID()])
    if (withEnqueue) await enqueueWebhookDeliveries(tx, { id, workspaceId: ws, type: 'task.assignment.changed', task: { id: randomUUID(), board_id: randomUUID(), revision: 2, origin: 'local' }, previousAssignee: 7, assignee: 8 })
  })
  return performance.now() - t0
}

async function subscriptions(db: Database, ws: string, n: number, enabled: boolean, url: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    await db.query(
      `INSERT INTO webhook_subscriptions (id, workspace_id, url, events, enabled, secret) VALUES ($1, $2, $3, $4, $5, $6)`,
      [randomUUID(), ws, url, ['task.assignment.changed', 'task.deleted'], enabled, Buffer.from(`whsec_bench_${i}`)])
  }
}

async function enqueueCost(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'))
  const db = await openPglite(dir)
  try {
    await migrate(db, PG_MIGRATIONS)
    console.log(`(1) the task change's transaction, ${CHANGES} changes x ${ROUNDS} alternating rounds (medians), PGlite`)
    for (const [label, subs] of [['no subscription', 0], ['1 matching subscription', 1], ['10 matching subscriptions', 10], ['50 disabled subscriptions', -50]] as const) {
      const ws = (await createWorkspace(db, `bench ${label}`)).id
      await subscriptions(db, ws, Math.abs(subs), subs > 0, 'http://127.0.0.1:9/')
      const base: number[] = []
      const withQ: number[] = []
      const latBase: number[] = []
      const latQ: number[] = []
      for (let r = 0; r < ROUNDS; r++) {
        for (const enqueue of [false, true]) {
          const t0 = performance.now()
          for (let i = 0; i < CHANGES; i++) (enqueue ? latQ : latBase).push(await eventTx(db, ws, enqueue))
          const rate = CHANGES / ((performance.now() - t0) / 1000);
          (enqueue ? withQ : base).push(rate)
        }
      }
      const b = summarize(latBase)
      const q = summarize(latQ)
      console.log(`  ${label.padEnd(26)} event only: ${fmt(median(base), 0)} tx/s, p50 ${fmt(b.p50, 2)} ms, p99 ${fmt(b.p99, 2)} ms; ` +
        `event + delivery rows: ${fmt(median(withQ), 0)} tx/s, p50 ${fmt(q.p50, 2)} ms, p99 ${fmt(q.p99, 2)} ms; ` +
        `ratio ${fmt(median(withQ) / median(base), 2)} (throughput), +${fmt(q.p50 - b.p50, 2)} ms (p50)`)
    }
  } finally {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function deliveryRate(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as AddressInfo).port
  const url = `http://127.0.0.1:${port}/hook`
  const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'))
  const db = await openPglite(dir)
  // A host name, so every attempt runs the connection's lookup and address check
  // (the resolver is injected so the figure does not depend on the system's DNS).
  const worker = new WebhookWorker(db, { workerId: 'bench', batch: 20, resolver: async () => [{ address: '127.0.0.1', family: 4 }] })
  const body = JSON.stringify({ schema_version: 1, id: randomUUID(), type: 'task.assignment.changed', occurred_at: new Date().toISOString(), source: { instance_id: randomUUID(), workspace_id: randomUUID() }, task: { id: randomUUID(), board_id: randomUUID(), revision: 2 }, previous_assignee: { id: 'profile:7', kind: 'user' }, assignee: { id: 'profile:8', kind: 'user' } })
  try {
    await migrate(db, PG_MIGRATIONS)
    const ws = (await createWorkspace(db, 'bench delivery')).id
    await subscriptions(db, ws, 20, true, `http://receiver.bench:${port}/hook`)
    console.log(`(2) deliveries to a loopback receiver answering 200, ${DELIVERIES} per round, ${ROUNDS} alternating rounds (medians)`)
    const worker_: number[] = []
    const rawReset: number[] = []
    const rawKeep: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      // Queue DELIVERIES rows: DELIVERIES / 20 events to 20 subscriptions.
      for (let i = 0; i < DELIVERIES / 20; i++) {
        await db.transaction(async (tx) => {
          const id = randomUUID()
          await tx.query(
            `INSERT INTO project_events (id, workspace_id, type, task_id, board_id, task_number, task_revision, assignment_revision,
               previous_assignee, assignee, origin, actor)
             VALUES ($1, $2, 'task.assignment.changed', $3, $4, 1, 2, 2, 7, 8, 'local', '{}'::jsonb)`, [id, ws, randomUUID(), randomUUID()])
          await enqueueWebhookDeliveries(tx, { id, workspaceId: ws, type: 'task.assignment.changed', task: { id: randomUUID(), board_id: randomUUID(), revision: 2, origin: 'local' }, previousAssignee: 7, assignee: 8 })
        })
      }
      let t0 = performance.now()
      let sent = 0
      while (sent < DELIVERIES) {
        const n = await worker.step()
        if (n === 0) break
        sent += n
      }
      worker_.push(sent / ((performance.now() - t0) / 1000))
      for (const [list, reset] of [[rawReset, true], [rawKeep, false]] as const) {
        const agent = new Agent({ connections: 20 })
        t0 = performance.now()
        let next = 0
        await Promise.all(Array.from({ length: 20 }, async () => {
          while (next++ < DELIVERIES) {
            const res = await request(url, { dispatcher: agent, method: 'POST', body, headers: { 'content-type': 'application/json' }, reset })
            await res.body.dump()
          }
        }))
        list.push(DELIVERIES / ((performance.now() - t0) / 1000))
        await agent.close()
      }
    }
    const w = median(worker_)
    console.log(`  worker (claim, lookup + address check, sign, POST on a fresh connection, record attempt): ${fmt(w, 0)} deliveries/s`)
    console.log(`  raw undici POST, a fresh connection each (reset): ${fmt(median(rawReset), 0)} req/s; ratio worker/raw ${fmt(w / median(rawReset), 2)}`)
    console.log(`  raw undici POST, keep-alive: ${fmt(median(rawKeep), 0)} req/s; ratio worker/raw ${fmt(w / median(rawKeep), 2)}`)
  } finally {
    await worker.close()
    await db.close()
    rmSync(dir, { recursive: true, force: true })
    server.close()
  }
}

console.log(`load average at start: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
await enqueueCost()
await deliveryRate()
console.log(`load average at end: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
