// Load shedding on event-loop delay (LOOKOUT_MAX_EVENT_LOOP_DELAY_MS,
// @fastify/under-pressure), on: a real server whose process is really stalled.
// The server runs in this process; a sender in another process keeps requests
// coming on a cloud and a desktop ingest route while this process's event loop
// is held by synchronous work for a few seconds (in slices, so that the server
// still answers between them, as a server busy with CPU-bound work does).
// Refusals are retryable (exactly 429 on the cloud route, 503 on the desktop one; Retry-After, LOOKOUT_OVERLOADED in the
// route's error shape), nothing refused is stored, and once the stall ends
// requests succeed again and every accepted event is stored once.
import t from 'tap'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { startTestLookout } from '../helpers/lookout.ts'

const MAX_DELAY_MS = 200
const EVENTS = 5

interface Answer {
  route: 'cloud' | 'desktop'
  tag: string
  status: number
  retryAfter: string | null
  body?: string
  error?: string
  sentAt: number
  doneAt: number
}

/** Holds this process's event loop: `sliceMs` of synchronous work, a turn of the loop, again, for `totalMs`. */
async function stall(totalMs: number, sliceMs: number): Promise<void> {
  const end = performance.now() + totalMs
  let x = 0
  while (performance.now() < end) {
    const sliceEnd = Math.min(end, performance.now() + sliceMs)
    while (performance.now() < sliceEnd) x = (x + Math.sqrt(x + 1)) % 1e9
    await new Promise((r) => setImmediate(r))
  }
  if (x < 0) throw new Error('unreachable') // keeps the loop from being optimised away
}

function codeOf(body: string | undefined): string | undefined {
  try {
    const b = JSON.parse(body ?? '') as { error?: { code?: string }; detail?: { type?: string }[] }
    return b.error?.code ?? b.detail?.[0]?.type
  } catch {
    return undefined
  }
}

t.test('event-loop pressure: retryable refusals, then recovery; accepted events stored once, refused ones not', async (t) => {
  const lk = await startTestLookout({ env: { LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: String(MAX_DELAY_MS) } })
  t.teardown(() => lk.stop())
  const cloudRid = await lk.resource('pressure-cloud')
  const deskRid = await lk.resource('pressure-desktop')
  const deskToken = await lk.token_(['logs:write'], [deskRid])

  const child = spawn(process.execPath, [fileURLToPath(new URL('./pressure-client.ts', import.meta.url))], {
    env: {
      ...process.env, PRESSURE_URL: lk.url, PRESSURE_INTERVAL_MS: '40', PRESSURE_EVENTS: String(EVENTS),
      PRESSURE_CLOUD_PATH: `/v1/workspaces/${lk.workspaceId}/resources/${cloudRid}/logs`, PRESSURE_CLOUD_TOKEN: lk.token,
      PRESSURE_DESKTOP_TOKEN: deskToken, PRESSURE_DESKTOP_RID: deskRid,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)))
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  const answers: Answer[] = []
  let waiter: (() => void) | null = null
  createInterface({ input: child.stdout }).on('line', (l) => {
    const a = JSON.parse(l) as Answer | { done: true }
    if (!('done' in a)) answers.push(a)
    waiter?.()
  })
  const until = async (what: string, ok: () => boolean, timeoutMs: number): Promise<void> => {
    const deadline = Date.now() + timeoutMs
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise<void>((r) => {
        waiter = r
        setTimeout(r, 200)
      })
    }
  }
  const ok = (route: string, after = 0) => answers.filter((a) => a.route === route && a.status === 200 && a.sentAt >= after).length

  // Served normally first (start-up work may itself have raised the delay for a moment).
  await until('normal service', () => ok('cloud') >= 10 && ok('desktop') >= 10, 60_000)
  const stallStart = Date.now()
  await stall(4000, 400)
  const stallEnd = Date.now()
  await until('service after the stall', () => ok('cloud', stallEnd) >= 10 && ok('desktop', stallEnd) >= 10, 60_000).catch(() => undefined)
  const recoveredAt = Math.min(...answers.filter((a) => a.status === 200 && a.sentAt >= stallEnd).map((a) => a.doneAt))
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'the sender finished its requests')

  const refused = answers.filter((a) => a.status !== 200)
  const byStatus: Record<string, number> = {}
  for (const a of answers) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1
  t.comment(`answers ${answers.length} by status ${JSON.stringify(byStatus)}; stalled ${stallEnd - stallStart} ms; ` +
    `first refusal ${Math.min(...refused.map((a) => a.doneAt)) - stallStart} ms into the stall; served again ${recoveredAt - stallEnd} ms after it`)
  t.same(answers.filter((a) => a.status === 0), [], 'no connection failed')
  for (const route of ['cloud', 'desktop'] as const) {
    const mine = refused.filter((a) => a.route === route)
    const inStall = mine.filter((a) => a.doneAt >= stallStart && a.sentAt <= stallEnd).length
    t.ok(inStall > 0, `${route}: requests were refused during the stall (${inStall})`)
    const statuses = route === 'desktop' ? [503] : [429]
    t.same(mine.filter((a) => !statuses.includes(a.status)).map((a) => `${a.status} ${a.body}`), [], `${route}: every refusal is ${statuses.join(' or ')}`)
    t.same(mine.filter((a) => !/^[1-9]\d*$/.test(a.retryAfter ?? '')).map((a) => a.tag), [], `${route}: every refusal carries Retry-After in seconds`)
    t.same(mine.filter((a) => codeOf(a.body) !== 'LOOKOUT_OVERLOADED').map((a) => a.body), [], `${route}: every refusal says LOOKOUT_OVERLOADED`)
    if (route === 'desktop') {
      t.ok(mine.every((a) => typeof (JSON.parse(a.body ?? '{}') as { error?: { message?: unknown } }).error?.message === 'string'), 'desktop: {error:{message, code}}')
    }
    // A busy machine can delay the loop past the limit on its own: refusals outside the stall are allowed, and shown.
    t.comment(`${route}: refused before the stall: ${mine.filter((a) => a.doneAt < stallStart).length}, during or after it: ${mine.filter((a) => a.doneAt >= stallStart).length}`)
    t.ok(ok(route, stallEnd) >= 10, `${route}: served again after the stall (${ok(route, stallEnd)} requests sent after it succeeded)`)
  }

  // Accepted events stored exactly once; refused requests left nothing behind.
  for (const [route, rid] of [['cloud', cloudRid], ['desktop', deskRid]] as const) {
    const accepted = answers.filter((a) => a.route === route && a.status === 200)
    const rows = await lk.waitRows(rid, accepted.length * EVENTS, 60_000)
    await new Promise((r) => setTimeout(r, 500))
    const messages = (await lk.rows(rid)).map((r) => String(r.message))
    const tags = new Set(messages.map((m) => m.split(' event ')[0]))
    t.equal(messages.length, accepted.length * EVENTS, `${route}: ${accepted.length} requests × ${EVENTS} events stored (${rows.length})`)
    t.equal(new Set(messages).size, messages.length, `${route}: none twice`)
    t.same(accepted.filter((a) => !tags.has(a.tag)).map((a) => a.tag), [], `${route}: every accepted request stored`)
    t.same(refused.filter((a) => a.route === route && tags.has(a.tag)).map((a) => a.tag), [], `${route}: no refused request stored`)
  }
})
