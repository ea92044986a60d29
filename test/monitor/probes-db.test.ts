// Database probes against real servers started here: PostgreSQL, MariaDB
// (as both mysql and mariadb kinds), Redis, and MongoDB where a mongod exists;
// otherwise the MongoDB driver runs against failing ports and a wire-protocol stand-in.
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, type AddressInfo } from 'node:net'
import { DatabaseRunner, PROBE_REASONS, parseConfig, type Kind, type ProbeContext } from '../../monitor/internal.ts'
import {
  freePort, mariadbAvailable, mongodPath, postgresAvailable, redisAvailable, startMariadbServer, startMongoServer,
  startPostgresServer, startRedisServer, startTcp,
} from '../helpers/servers.ts'
import { probeTarget } from '../helpers/probe-target.ts'
import { startFakeMongo } from '../helpers/fake-mongo.ts'

const secretsDir = mkdtempSync(join(tmpdir(), 'lookout-secrets-'))
t.teardown(() => rmSync(secretsDir, { recursive: true, force: true }))
const runner = new DatabaseRunner()
const ctx = (env: Record<string, string>): ProbeContext => ({ credentials: { fileDirs: [secretsDir], env }, now: Date.now() })
const REF = { env: 'LOOKOUT_SECRET_DB' }

async function refusedAndMissing(t: Test, kind: Kind, user: string | undefined): Promise<void> {
  const port = await freePort()
  const refused = await runner.run(probeTarget(kind, { host: '127.0.0.1', port, user, timeout_seconds: 3 }, REF), ctx({ LOOKOUT_SECRET_DB: 'x' }))
  t.equal(refused.status, 'down', `${kind}: nothing listening`)
  t.equal(refused.code, PROBE_REASONS.refused, refused.reason)
  const unset = await runner.run(probeTarget(kind, { host: '127.0.0.1', port, user }, REF), ctx({}))
  t.equal(unset.status, 'unknown', `${kind}: an unset credential is unknown`)
  t.equal(unset.code, PROBE_REASONS.credential)
}

t.test('postgresql: connect, authenticate, query', { skip: postgresAvailable() ? false : 'initdb not found (Debian package postgresql)' }, async (t) => {
  const pg = await startPostgresServer()
  t.teardown(() => pg.stop())
  const cfg = { host: pg.host, port: pg.port, user: pg.user, database: 'postgres' }
  const ok = await runner.run(probeTarget('postgresql', cfg, REF), ctx({ LOOKOUT_SECRET_DB: pg.password }))
  t.equal(ok.status, 'up', ok.reason)
  t.match(ok.details?.server_version, /^15\./)
  t.notMatch(JSON.stringify(ok), pg.password)
  const wrong = await runner.run(probeTarget('postgresql', cfg, REF), ctx({ LOOKOUT_SECRET_DB: 'wrong-password' }))
  t.equal(wrong.status, 'down')
  t.equal(wrong.code, PROBE_REASONS.auth)
  t.match(wrong.reason, /password authentication failed/)
  t.notMatch(wrong.reason, /wrong-password/)
  const noDb = await runner.run(probeTarget('postgresql', { ...cfg, database: 'absent' }, REF), ctx({ LOOKOUT_SECRET_DB: pg.password }))
  t.equal(noDb.status, 'down', 'a missing database is a failure')
  const file = join(secretsDir, 'pg')
  writeFileSync(file, pg.password + '\n')
  t.equal((await runner.run(probeTarget('postgresql', cfg, { file }), ctx({}))).status, 'up', 'password from a secrets file')
  const noUser = await runner.run(probeTarget('postgresql', { host: pg.host, port: pg.port }, REF), ctx({ LOOKOUT_SECRET_DB: pg.password }))
  t.equal(noUser.status, 'unknown', 'a probe without a user cannot judge the server')
  // tls prefer (libpq's meaning): this server offers no TLS, so the probe falls back to plain; require fails.
  const prefer = await runner.run(probeTarget('postgresql', { ...cfg, tls: 'prefer' }, REF), ctx({ LOOKOUT_SECRET_DB: pg.password }))
  t.equal(prefer.status, 'up', prefer.reason)
  t.equal(prefer.details?.tls, false, 'plain, and the details say so')
  const required = await runner.run(probeTarget('postgresql', { ...cfg, tls: 'require' }, REF), ctx({ LOOKOUT_SECRET_DB: pg.password }))
  t.equal(required.status, 'down', 'require never falls back')
  await refusedAndMissing(t, 'postgresql', 'probe')
})

t.test('the console\'s postgresql template is accepted (console/src/components/check-form.tsx)', async (t) => {
  t.ok(parseConfig('postgresql', { host: 'db.internal', port: 5432, tls: 'prefer', interval_seconds: 60 }).ok)
  t.notOk(parseConfig('mysql', { host: 'db.internal', tls: 'prefer' }).ok, 'prefer is PostgreSQL\'s (libpq) mode only')
})

t.test('mysql and mariadb: connect, authenticate, query', { skip: mariadbAvailable() ? false : 'mariadbd not found (Debian package mariadb-server)' }, async (t) => {
  const db = await startMariadbServer()
  t.teardown(() => db.stop())
  for (const kind of ['mysql', 'mariadb'] as const) {
    const cfg = { host: db.host, port: db.port, user: db.user }
    const ok = await runner.run(probeTarget(kind, cfg, REF), ctx({ LOOKOUT_SECRET_DB: db.password }))
    t.equal(ok.status, 'up', `${kind}: ${ok.reason}`)
    t.match(ok.details?.server_version, /MariaDB/)
    const wrong = await runner.run(probeTarget(kind, cfg, REF), ctx({ LOOKOUT_SECRET_DB: 'wrong-password' }))
    t.equal(wrong.status, 'down')
    t.equal(wrong.code, PROBE_REASONS.auth, wrong.reason)
    t.match(wrong.reason, /Access denied/)
    t.notMatch(wrong.reason, /wrong-password/)
  }
  await refusedAndMissing(t, 'mariadb', 'probe')
})

t.test('redis: AUTH and PING', { skip: redisAvailable() ? false : 'redis-server not found (Debian package redis-server)' }, async (t) => {
  const redis = await startRedisServer()
  t.teardown(() => redis.stop())
  const cfg = { host: redis.host, port: redis.port }
  const ok = await runner.run(probeTarget('redis', cfg, REF), ctx({ LOOKOUT_SECRET_DB: redis.password }))
  t.equal(ok.status, 'up', ok.reason)
  const wrong = await runner.run(probeTarget('redis', cfg, REF), ctx({ LOOKOUT_SECRET_DB: 'wrong-password' }))
  t.equal(wrong.status, 'down')
  t.equal(wrong.code, PROBE_REASONS.auth, wrong.reason)
  const none = await runner.run(probeTarget('redis', cfg), ctx({}))
  t.equal(none.status, 'down', 'PING without AUTH is refused by the server')
  t.equal(none.code, PROBE_REASONS.auth, none.reason)
  await refusedAndMissing(t, 'redis', undefined)
})

t.test('mongodb: the driver path without a server (refused, silent, hung up)', async (t) => {
  await refusedAndMissing(t, 'mongodb', undefined)
  const unset = await runner.run(probeTarget('mongodb', { host: '127.0.0.1', port: await freePort(), user: 'probe' }, REF), ctx({}))
  t.equal(unset.code, PROBE_REASONS.credential, 'with a user, an unset credential is unknown before any connection')
  // Accepts and never answers: the driver's server selection gives up at the timeout.
  const silent = await startTcp({ reply: () => '' })
  t.teardown(() => silent.close())
  const quiet = await runner.run(probeTarget('mongodb', { host: '127.0.0.1', port: silent.port, timeout_seconds: 1 }), ctx({}))
  t.equal(quiet.status, 'down', quiet.reason)
  t.equal(quiet.code, PROBE_REASONS.timeout, quiet.reason)
  const quietTls = await runner.run(probeTarget('mongodb', { host: '127.0.0.1', port: silent.port, tls: 'require', timeout_seconds: 1 }), ctx({}))
  t.equal(quietTls.status, 'down', `TLS to a silent port: ${quietTls.reason}`)
  t.equal(quietTls.code, PROBE_REASONS.timeout)
  // Accepts and hangs up at once: not MongoDB, down.
  const rude = createServer((s) => s.destroy())
  await new Promise<void>((resolve) => rude.listen(0, '127.0.0.1', () => resolve()))
  t.teardown(() => new Promise<void>((resolve) => rude.close(() => resolve())))
  const cfg = { host: '127.0.0.1', port: (rude.address() as AddressInfo).port, user: 'probe', timeout_seconds: 1 }
  const hungUp = await runner.run(probeTarget('mongodb', cfg, REF), ctx({ LOOKOUT_SECRET_DB: 'mongo-secret-value' }))
  t.equal(hungUp.status, 'down', hungUp.reason)
  t.equal(hungUp.code, PROBE_REASONS.network, hungUp.reason)
  t.notMatch(JSON.stringify(hungUp), /mongo-secret-value/)
})

t.test('mongodb: hello, ping and authentication over the wire protocol (a stand-in server)', async (t) => {
  const fake = await startFakeMongo()
  t.teardown(() => fake.close())
  const cfg = { host: '127.0.0.1', port: fake.port, timeout_seconds: 3 }
  const ok = await runner.run(probeTarget('mongodb', cfg), ctx({}))
  t.equal(ok.status, 'up', ok.reason)
  t.equal(ok.code, PROBE_REASONS.ok)
  t.equal(ok.details?.primary, true, 'hello says writable primary')
  t.ok(fake.commands.includes('ping'), `the probe ran ping (${fake.commands.join(', ')})`)
  t.ok(fake.commands.includes('hello'), 'and hello as a command')
  fake.commands.length = 0
  const refused = await runner.run(probeTarget('mongodb', { ...cfg, user: 'probe' }, REF), ctx({ LOOKOUT_SECRET_DB: 'mongo-secret-value' }))
  t.equal(refused.status, 'down', refused.reason)
  t.equal(refused.code, PROBE_REASONS.auth, refused.reason)
  t.ok(fake.commands.some((c) => /^sasl/i.test(c)), `the driver tried SCRAM (${fake.commands.join(', ')})`)
  t.notOk(fake.commands.includes('ping'), 'no query after a refused authentication')
  t.notMatch(JSON.stringify(refused), /mongo-secret-value/)
})

const mongod = mongodPath()
t.test('mongodb: hello and ping against mongod', { skip: mongod === null ? 'no mongod binary (MongoDB is not a Debian package; set LOOKOUT_MONGOD to run this)' : false }, async (t) => {
  const m = await startMongoServer()
  t.teardown(() => m.stop())
  const o = await runner.run(probeTarget('mongodb', { host: m.host, port: m.port }), ctx({}))
  t.equal(o.status, 'up', o.reason)
})
