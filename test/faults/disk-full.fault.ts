// The data directory's disk nearly full, for real: the data directory is a
// small tmpfs (needs root, or CAP_SYS_ADMIN, for mount), filled by a file until
// little is left, under steady ingestion. Ingestion is refused with a clear
// error (503 LOOKOUT_INGEST_DISK_FULL naming the directory) before JetStream or
// ClickHouse run out; once space is freed the senders' retries get in; every
// acknowledged event is stored once; after a restart on the same directory the
// engines open it and ClickHouse's CHECK TABLE finds every part sound.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startTestLookout } from '../helpers/lookout.ts'
import { Ledger, formatReport } from './lib/ledger.ts'
import { SteadySender } from './lib/sender.ts'

const MiB = 1024 * 1024
const RESERVE = 16 * MiB
const mountPoint = mkdtempSync(join(tmpdir(), 'lookout-disk-'))
let mounted = false
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160m', 'tmpfs', mountPoint], { stdio: 'pipe' })
  mounted = true
} catch (err) {
  t.comment(`cannot mount a tmpfs here (${String((err as Error).message).split('\n')[0]}): not root?`)
}
t.teardown(() => {
  if (mounted) execFileSync('umount', ['-l', mountPoint])
  rmSync(mountPoint, { recursive: true, force: true })
})

const free = () => {
  const s = statfsSync(mountPoint)
  return Number(s.bavail) * Number(s.bsize)
}

t.test('a nearly full data directory refuses ingestion clearly and corrupts nothing', { skip: mounted ? false : 'needs a tmpfs mount (root)' }, async (t) => {
  const dataDir = join(mountPoint, 'data')
  mkdirSync(dataDir)
  const env = {
    LOOKOUT_MIN_FREE_DISK_BYTES: String(RESERVE),
    LOOKOUT_MAX_INFLIGHT_BYTES: String(2 * MiB),
    LOOKOUT_STREAM_MAX_BYTES: String(32 * MiB),
  }
  const lk = await startTestLookout({ dataDir, env })
  let running = true
  t.teardown(async () => {
    if (running) await lk.stop()
  })
  const rid = await lk.resource('disk')
  const probePath = `/v1/workspaces/${lk.workspaceId}/resources/${await lk.resource('disk-probe')}/logs`
  // Leave 12 MiB above the reserve.
  const filler = join(mountPoint, 'filler')
  writeFileSync(filler, Buffer.alloc(Math.max(0, free() - RESERVE - 12 * MiB)))
  t.comment(`free after filling: ${(free() / MiB).toFixed(1)} MiB (reserve ${RESERVE / MiB} MiB)`)

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
  await sleep(3000) // refused for a while: nothing is written meanwhile
  const freeLater = free()
  t.comment(`refused with ${JSON.stringify(refusal?.body)}; free at refusal ${(freeAtRefusal / MiB).toFixed(1)} MiB, 3 s later ${(freeLater / MiB).toFixed(1)} MiB`)
  t.equal(refusal?.status, 503, 'refused with 503')
  t.equal(refusal?.body?.detail?.[0]?.type, 'LOOKOUT_INGEST_DISK_FULL', 'with the disk-full code')
  t.match(String(refusal?.body?.detail?.[0]?.msg), dataDir, 'naming the directory')
  t.ok(freeLater > 0, 'the disk itself never ran out')

  rmSync(filler)
  sender.phase = 'after'
  await sleep(2000)
  await sender.finish(60_000)
  const rep = await ledger.settle(lk.lookout.store, rid)
  t.comment(formatReport('disk nearly full', rep))
  t.comment(`sender: ${JSON.stringify(sender.stats)}`)
  t.ok(ledger.ackedIn('after') > 0, 'ingestion resumed once space was freed')
  t.same(sender.stats.fatal, [], 'no request refused for good')
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
