// The managed nats-server fsyncs every JetStream write (`sync_interval:
// always`) when its binary has the option (2.10+), and leaves it out otherwise:
// Debian bookworm's 2.9.10 refuses it and would not start. Both branches run against
// real binaries' own `--version`: the 2.10 fetched from Debian trixie into tools/ (the
// managed default) and bookworm's 2.9.10 (the fallback), and a stand-in that reports 2.10.14.
import t from 'tap'
import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import {
  FETCHED_NATS_SERVER, ManagedNats, detectNatsServerVersion, findNatsServer, formatNatsServerVersion, hasSyncInterval,
  jetstreamSyncLines, parseNatsServerVersion,
} from '../../deploy/index.ts'

const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(d, { recursive: true, force: true }))
  return d
}

t.test('the decision: sync_interval from 2.10.0 on, never before or when unknown', async (t) => {
  const lines = (s: string) => jetstreamSyncLines(parseNatsServerVersion(s))
  t.same(lines('nats-server: v2.9.10'), [], 'Debian bookworm 2.9.10')
  t.same(lines('nats-server: v2.9.25'), [], 'the last 2.9')
  t.same(lines('nats-server: v2.10.0-beta.41'), [], 'a 2.10 pre-release sorts before 2.10.0')
  t.same(lines('nats-server: v2.10.0'), ['  sync_interval: always'], '2.10.0')
  t.same(lines('nats-server: v2.10.14'), ['  sync_interval: always'], '2.10.14')
  t.same(lines('nats-server: v2.11.3'), ['  sync_interval: always'], '2.11.3')
  t.same(lines('nats-server: v3.0.0'), ['  sync_interval: always'], 'a later major')
  t.same(lines('1.4.1'), [], 'an old 1.x')
  t.same(lines('something else entirely'), [], 'no version: left out (every version accepts that)')
  t.same(parseNatsServerVersion('nats-server: v2.10.14'), { major: 2, minor: 10, patch: 14, prerelease: '' })
  t.equal(hasSyncInterval(null), false)
})

// The binaries the suite can meet: the 2.10 that bootstrap.sh fetches from Debian trixie
// (the managed default), and Debian bookworm's 2.9.10 (the fallback). Under the test
// command (LOOKOUT_TEST_REQUIRE_SERVERS=1, after bootstrap.sh) both must be there.
const DEBIAN_NATS_SERVER = '/usr/sbin/nats-server'
const mustHave = process.env.LOOKOUT_TEST_REQUIRE_SERVERS === '1'

t.test('the lookup: LOOKOUT_NATS_SERVER, else the fetched 2.10, else PATH and /usr/sbin', async (t) => {
  t.equal(findNatsServer('/opt/elsewhere/nats-server'), '/opt/elsewhere/nats-server', 'an explicit binary wins, whatever it is')
  if (!existsSync(FETCHED_NATS_SERVER)) {
    if (mustHave) t.fail(`${FETCHED_NATS_SERVER} is missing: bootstrap.sh did not fetch nats-server 2.10 from Debian trixie`)
    else t.comment(`${FETCHED_NATS_SERVER} not fetched (run deploy/fetch-nats.sh): the lookup falls back to PATH`)
    t.not(findNatsServer(), FETCHED_NATS_SERVER)
    return
  }
  t.equal(findNatsServer(), FETCHED_NATS_SERVER, 'the fetched binary comes before PATH and /usr/sbin')
  t.equal(findNatsServer(''), FETCHED_NATS_SERVER, 'an empty LOOKOUT_NATS_SERVER is no choice')
  const v = await detectNatsServerVersion(FETCHED_NATS_SERVER)
  t.ok(hasSyncInterval(v), `the fetched binary is 2.10 or later: ${v === null ? 'no version' : formatNatsServerVersion(v)}`)
})

const binaries = [FETCHED_NATS_SERVER, DEBIAN_NATS_SERVER].filter((b) => existsSync(b) || (mustHave && b === DEBIAN_NATS_SERVER))
for (const binary of binaries) {
  const version = await detectNatsServerVersion(binary)

  t.test(`${binary}: its version decides, and it starts`, async (t) => {
    t.ok(version !== null, `reads the version: ${JSON.stringify(version)}`)
    const nats = new ManagedNats({ dir: tmp('lookout-natssync-'), binary })
    t.teardown(() => nats.stop())
    const url = await nats.start()
    t.same(nats.version, version, 'the managed server read the same binary')
    const conf = readFileSync(nats.confPath, 'utf8')
    if (hasSyncInterval(version)) t.match(conf, /^ {2}sync_interval: always$/m, '>= 2.10: every write fsynced')
    else t.notMatch(conf, /sync_interval/, '< 2.10: the option is left out')
    t.equal(nats.syncAlways, hasSyncInterval(version))
    const nc = await connect({ servers: url })
    const info = nc.info
    await nc.close()
    t.ok(info?.jetstream, `the server runs with JetStream (server ${info?.version})`)
    t.equal(info?.version, `${version?.major}.${version?.minor}.${version?.patch}`, 'and is the version --version printed')
  })

  t.test(`why the decision exists: ${binary} with sync_interval set`, async (t) => {
    const dir = tmp('lookout-natssync-refuse-')
    const conf = join(dir, 'nats.conf')
    writeFileSync(conf, [
      'listen: "127.0.0.1:-1"',
      'jetstream {',
      `  store_dir: ${JSON.stringify(join(dir, 'js'))}`,
      '  sync_interval: always',
      '}',
      '',
    ].join('\n'))
    const child = spawn(binary, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    // A server that accepts the option keeps running: stop it once it is ready (or after 10 s).
    const timer = setTimeout(() => child.kill('SIGTERM'), 10_000)
    child.stderr.on('data', () => {
      if (/Server is ready/.test(out)) child.kill('SIGTERM')
    })
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)))
    clearTimeout(timer)
    if (hasSyncInterval(version)) {
      t.match(out, /Server is ready/, `${JSON.stringify(version)} accepts sync_interval`)
    } else {
      t.not(code, 0, `exits with ${code}`)
      t.match(out, /unknown field "sync_interval"/, 'refuses the option as an unknown field')
      t.notMatch(out, /Server is ready/, 'never becomes ready')
    }
  })
}

t.test('a binary whose --version prints 2.10.14: sync_interval: always is written, the version read once', async (t) => {
  const bin = tmp('lookout-natssync-bin-')
  const calls = join(bin, 'calls.log')
  const seen = join(bin, 'conf-seen')
  const script = join(bin, 'nats-server')
  // A stand-in, not a server: it answers --version, and for -c keeps the
  // configuration it was given and exits, as a binary that cannot start would.
  writeFileSync(script, [
    '#!/bin/sh',
    `echo "$*" >> ${JSON.stringify(calls)}`,
    'if [ "$1" = "--version" ]; then echo "nats-server: v2.10.14"; exit 0; fi',
    `if [ "$1" = "-c" ]; then cp "$2" ${JSON.stringify(seen)}; fi`,
    'echo "stand-in: not a server" >&2',
    'exit 1',
    '',
  ].join('\n'))
  chmodSync(script, 0o755)
  const before = process.env.LOOKOUT_NATS_SERVER
  process.env.LOOKOUT_NATS_SERVER = script
  t.teardown(() => {
    if (before === undefined) delete process.env.LOOKOUT_NATS_SERVER
    else process.env.LOOKOUT_NATS_SERVER = before
  })
  const nats = new ManagedNats({ dir: tmp('lookout-natssync-fake-') })
  await t.rejects(nats.start(), /stand-in: not a server/, 'the stand-in does not serve')
  await t.rejects(nats.start(), /stand-in: not a server/, 'a second start')
  t.same(nats.version, { major: 2, minor: 10, patch: 14, prerelease: '' }, 'the version is the binary\'s own output')
  t.ok(nats.syncAlways)
  t.ok(existsSync(seen), 'the binary was started with a configuration')
  t.match(readFileSync(seen, 'utf8'), /jetstream \{[^}]*\n {2}sync_interval: always\n\}/, 'the configuration it got fsyncs every write')
  const lines = readFileSync(calls, 'utf8').trim().split('\n')
  t.same(lines.filter((l) => l === '--version').length, 1, '--version asked once for both starts')
  t.same(lines.filter((l) => l.startsWith('-c ')).length, 2, 'started twice')
})
