// deploy/fetch-nats.sh, which bootstrap.sh runs: done once it has a nats-server 2.10
// in tools/ (nothing fetched again), and a download that cannot happen is a clear
// line and exit 0, the installed nats-server staying the managed one. Each case runs
// the script in a scratch project folder; the download that cannot happen goes to a
// closed loopback port (LOOKOUT_DEBIAN_MIRROR), the real download is bootstrap.sh's.
import t from 'tap'
import { execFile } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const script = new URL('../../deploy/fetch-nats.sh', import.meta.url).pathname

/** A scratch project with deploy/fetch-nats.sh and, when given, a tools/ binary printing `version`. */
function project(version?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-fetch-nats-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'deploy'))
  copyFileSync(script, join(dir, 'deploy', 'fetch-nats.sh'))
  if (version !== undefined) {
    const sbin = join(dir, 'tools', 'nats-server', 'usr', 'sbin')
    mkdirSync(sbin, { recursive: true })
    writeFileSync(join(sbin, 'nats-server'), `#!/bin/sh\necho "nats-server: v${version}"\n`)
    chmodSync(join(sbin, 'nats-server'), 0o755)
  }
  return dir
}

/** Name, size and modification time of what apt keeps for the machine: its sources, lists and caches. */
function aptState(): string[] {
  const out: string[] = []
  for (const d of ['/etc/apt', '/etc/apt/sources.list.d', '/var/lib/apt/lists', '/var/lib/apt/lists/partial', '/var/cache/apt']) {
    if (!existsSync(d)) continue
    for (const f of readdirSync(d)) {
      const st = statSync(join(d, f))
      out.push(`${d}/${f} ${st.size} ${st.mtimeMs}`)
    }
  }
  return out
}

async function fetchIn(dir: string, env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; ms: number }> {
  const t0 = Date.now()
  const { stdout, stderr } = await run('bash', [join(dir, 'deploy', 'fetch-nats.sh')], { env: { ...process.env, ...env }, timeout: 120_000 })
  return { stdout, stderr, ms: Date.now() - t0 }
}

t.test('a 2.10 in tools/ already: nothing fetched, nothing printed', async (t) => {
  const dir = project('2.10.27')
  // The mirror is closed: had the script tried to fetch, it would print the fallback line.
  const r = await fetchIn(dir, { LOOKOUT_DEBIAN_MIRROR: 'http://127.0.0.1:1/debian' })
  t.equal(r.stdout + r.stderr, '', 'silent')
  t.notOk(existsSync(join(dir, 'tools', 'apt')), 'no apt state made')
  t.ok(r.ms < 5000, `quick: ${r.ms} ms`)
})

t.test('an older binary in tools/ and no way to download: a clear line, exit 0, tools/ left as it was', async (t) => {
  const dir = project('2.9.10')
  const bin = join(dir, 'tools', 'nats-server', 'usr', 'sbin', 'nats-server')
  const before = readFileSync(bin, 'utf8')
  const aptBefore = aptState()
  const r = await fetchIn(dir, { LOOKOUT_DEBIAN_MIRROR: 'http://127.0.0.1:1/debian' })
  t.match(r.stdout, /fetching nats-server 2\.10 from Debian trixie \(http:\/\/127\.0\.0\.1:1\/debian\)/, 'says where it fetches from')
  t.match(r.stderr, /nats-server 2\.10 could not be fetched from Debian trixie \(apt-get update: .*127\.0\.0\.1.*\); the managed server stays the installed nats-server/,
    'says why it could not, and what runs instead')
  t.equal(readFileSync(bin, 'utf8'), before, 'the binary in tools/ is untouched')
  t.notOk(existsSync(join(dir, 'tools', 'apt')), 'its private apt state is removed')
  t.notOk(existsSync(join(dir, 'tools', 'nats-server.partial')), 'no half-unpacked folder left')
  t.same(aptState(), aptBefore, 'the machine\'s apt configuration, lists and caches are untouched')
})
