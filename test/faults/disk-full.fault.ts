// The data directory's disk nearly full, for real, under steady ingestion.
// Ingestion is refused with a clear error (503 LOOKOUT_INGEST_DISK_FULL naming
// the directory) before JetStream or ClickHouse run out; once space is freed
// the senders' retries get in; every acknowledged event is stored once; after
// a restart on the same directory the engines open it and ClickHouse's CHECK
// TABLE finds every part sound. It never skips; it runs one of two ways:
// - tmpfs (root or CAP_SYS_ADMIN; CI runs as root): the data directory is a
//   160 MiB tmpfs, filled by a file until 12 MiB above the reserve are left;
// - reserve (otherwise): the data directory is on the temporary directory's
//   own disk, and the reserve (LOOKOUT_MIN_FREE_DISK_BYTES) is set from its
//   real free space so that a 40 MiB filler leaves 8 MiB above it: the guard
//   trips as on a full disk without filling the disk (the shared disk's free
//   space moves with other processes, so this way is the less exact one).
// LOOKOUT_TEST_DISK_FULL=tmpfs|reserve forces a way (tmpfs fails if it cannot mount).
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startTestLookout, type TestLookout } from '../helpers/lookout.ts'
import { Ledger, formatReport } from './lib/ledger.ts'
import { SteadySender } from './lib/sender.ts'

const MiB = 1024 * 1024
const forced = process.env.LOOKOUT_TEST_DISK_FULL ?? ''
if (!['', 'tmpfs', 'reserve'].includes(forced)) throw new Error(`LOOKOUT_TEST_DISK_FULL=${forced}: tmpfs or reserve`)
const root = mkdtempSync(join(tmpdir(), 'lookout-disk-'))
let mounted = false
if (forced !== 'reserve') {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160m', 'tmpfs', root], { stdio: 'pipe' })
    mounted = true
  } catch (err) {
    if (forced === 'tmpfs') throw err
    t.comment(`cannot mount a tmpfs here (${String((err as Error).message).split('\n')[0]}): the reserve way`)
  }
}
const mode = mounted ? 'tmpfs' : 'reserve'
t.comment(`disk-full mode: ${mode}${mounted ? ' (a 160 MiB tmpfs really filled)' : ' (the reserve set from the shared disk\'s free space; nothing fills the disk)'}`)
t.teardown(() => {
  if (mounted) execFileSync('umount', ['-l', root])
  rmSync(root, { recursive: true, force: true })
})

const free = () => {
  const s = statfsSync(root)
  return Number(s.bavail) * Number(s.bsize)
}
/** Bytes the directory's files take on disk (allocated blocks). */
function diskBytes(dir: string): number {
  let n = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    const s = lstatSync(p)
    n += s.blocks * 512
    if (e.isDirectory()) n += diskBytes(p)
  }
  return n
}
const dataDir = join(root, 'data')
const filler = join(root, 'filler')
const baseEnv = { LOOKOUT_MAX_INFLIGHT_BYTES: String(2 * MiB), LOOKOUT_STREAM_MAX_BYTES: String(32 * MiB) }

/** Starts the server with a reserve and a filler that leaves a few MiB above it; returns it with its environment. */
async function startNearlyFull(): Promise<{ lk: TestLookout; env: Record<string, string> }> {
  mkdirSync(dataDir)
  if (mode === 'tmpfs') {
    const env = { ...baseEnv, LOOKOUT_MIN_FREE_DISK_BYTES: String(16 * MiB) }
    const lk = await startTestLookout({ dataDir, env })
    writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 16 * MiB - 12 * MiB)))
    return { lk, env }
  }
  // A first start creates the engines' files, so the second adds little to the disk.
  const first = await startTestLookout({ dataDir, env: { ...baseEnv, LOOKOUT_MIN_FREE_DISK_BYTES: '0' } })
  await first.stop()
  const FILLER = 40 * MiB
  if (free() < FILLER + 1024 * MiB) throw new Error(`the temporary directory has ${(free() / MiB).toFixed(0)} MiB free: too little to run this test safely`)
  const env = { ...baseEnv, LOOKOUT_MIN_FREE_DISK_BYTES: String(free() - FILLER - 8 * MiB) }
  writeFileSync(filler, Buffer.alloc(FILLER))
  return { lk: await startTestLookout({ dataDir, env }), env }
}

t.test(`a nearly full data directory refuses ingestion clearly and corrupts nothing (${mode})`, async (t) => {
  const { lk, env } = await startNearlyFull()
  const RESERVE = Number(env.LOOKOUT_MIN_FREE_DISK_BYTES)
  let running = true
  t.teardown(async () => {
    if (running) await lk.stop()
  })
  const rid = await lk.resource('disk')
  const probePath = `/v1/workspaces/${lk.workspaceId}/resources/${await lk.resource('disk-probe')}/logs`
  t.comment(`${mode}: free after filling: ${(free() / MiB).toFixed(1)} MiB, ${((free() - RESERVE) / MiB).toFixed(1)} MiB above the reserve of ${(RESERVE / MiB).toFixed(1)} MiB`)

  const ledger = new Ledger('disk')
  // About 100 KB of rows a request, 20 a second.
  const sender = new SteadySender({
    ledger, baseUrl: () => lk.url, path: `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`, token: lk.token,
    eventsPerBatch: 200, intervalMs: 50, maxRetryDelayMs: 1000, extra: () => ({ source: 'x'.repeat(200) }),
  })
  sender.start()
  let refusal: { status: number; body: any } | null = null
  for (let i = 0; i < 600 && refusal === null; i++) {
    await sleep(100)
    if ((sender.stats.statuses['503'] ?? 0) === 0) continue
    const r = await lk.req('POST', probePath, { events: [{ message: 'probe' }] })
    if (r.status !== 200) refusal = { status: r.status, body: r.body }
  }
  sender.phase = 'full'
  const freeAtRefusal = free()
  const dataAtRefusal = diskBytes(dataDir)
  // For 3 s the guard holds the line: ingestion resumes only as the engines free space
  // (the loader drains JetStream), so free space hovers at the reserve, never far below.
  let lowest = freeAtRefusal
  for (const end = Date.now() + 3000; Date.now() < end;) {
    await sleep(100)
    lowest = Math.min(lowest, free())
  }
  const freeLater = free()
  const grew = diskBytes(dataDir) - dataAtRefusal
  t.comment(`refused with ${JSON.stringify(refusal?.body)}; free at refusal ${(freeAtRefusal / MiB).toFixed(1)} MiB, 3 s later ${(freeLater / MiB).toFixed(1)} MiB; the data directory grew ${(grew / MiB).toFixed(2)} MiB meanwhile`)
  t.equal(refusal?.status, 503, 'refused with 503')
  t.equal(refusal?.body?.detail?.[0]?.type, 'LOOKOUT_INGEST_DISK_FULL', 'with the disk-full code')
  t.match(String(refusal?.body?.detail?.[0]?.msg), dataDir, 'naming the directory')
  t.comment(`acknowledged while the guard held the line (as space was freed): ${ledger.ackedIn('full')} events; lowest free ${(lowest / MiB).toFixed(1)} MiB`)
  // What was written meanwhile stays inside the margin the reserve keeps.
  t.ok(grew < 8 * MiB, `the data directory grew less than the margin above the reserve (${(grew / MiB).toFixed(2)} MiB)`)
  if (mode === 'tmpfs') t.ok(lowest > RESERVE / 2, `tmpfs: the filesystem kept most of its reserve all along (lowest ${(lowest / MiB).toFixed(1)} MiB free)`)

  rmSync(filler)
  sender.phase = 'after'
  await sleep(2000)
  await sender.finish(60_000)
  const rep = await ledger.settle(lk.lookout.store, rid)
  t.comment(formatReport('disk nearly full', rep))
  t.comment(`sender: ${JSON.stringify(sender.stats)}`)
  t.ok(ledger.ackedIn('after') > 0, 'ingestion resumed once space was freed')
  t.same(sender.stats.fatal, [], 'no request refused for good, and no 500')
  t.equal(rep.acknowledged, rep.sent, 'every request acknowledged in the end')
  t.equal(rep.lost, 0, 'lost')
  t.equal(rep.duplicated, 0, 'duplicated')
  t.equal(rep.unexpected, 0, 'no stray rows')

  // No corruption: stop, start again on the same directory, everything is there and sound.
  await lk.stop()
  running = false
  const again = await startTestLookout({ dataDir, env })
  t.teardown(() => again.stop())
  const check = await again.lookout.store.query<{ part_path: string; is_passed: number; message: string }>(
    `CHECK TABLE ${again.lookout.store.database}.logs SETTINGS check_query_single_value_result = 0`)
  t.ok(check.rows.length > 0 && check.rows.every((r) => Number(r.is_passed) === 1), `CHECK TABLE: ${check.rows.length} parts, all sound`)
  const after = await ledger.report(again.lookout.store, rid)
  t.equal(after.lost, 0, 'after the restart: lost')
  t.equal(after.duplicated, 0, 'after the restart: duplicated')
  const ws = await again.lookout.db.query<{ n: number }>('SELECT count(*)::int AS n FROM workspaces')
  t.ok((ws.rows[0]?.n ?? 0) >= 1, 'PostgreSQL (PGlite) opens with its data')
})
