// The verified-token cache on both engines: a cached token still proves its
// secret, a revocation in this process takes effect before it returns, a change
// by any other path (another connection's SQL) arrives by NOTIFY, and on a
// server whose listening connection breaks the cache is emptied and bypassed
// until it listens again.
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { PG_MIGRATIONS } from '../../../deploy/index.ts'
import { TokenVerifier, createToken, createWorkspace, revokeToken } from '../../../workspace/index.ts'
import { migrate, openPglite, openPostgres, type Database } from '../../../core/index.ts'
import { PGLITE_TEMPLATES, startTestLookout } from '../../helpers/lookout.ts'
import { postgresAvailable, startTestPostgres } from '../../helpers/postgres.ts'

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Runs SQL the way another server or an operator would: not through revokeToken. */
type Writer = (sql: string, params: unknown[]) => Promise<void>

async function sharedCases(t: Test, db: Database, write: Writer): Promise<void> {
  const ws = await createWorkspace(db, 'verifier')
  const mint = async () => (await createToken(db, { workspaceId: ws.id, scopes: ['logs:read'], resources: 'all' }))

  await t.test('a verified token is served from memory and still proves its secret', async (t) => {
    const v = new TokenVerifier(db)
    await v.start()
    t.teardown(() => v.close())
    t.equal(v.stats().listening, true)
    const { id, token } = await mint()
    const first = await v.verify(token)
    t.equal(first?.tokenId, id)
    t.same([...(first?.scopes ?? [])], ['logs:read'])
    const second = await v.verify(token)
    t.equal(second, first, 'the same principal')
    t.match(v.stats(), { hits: 1, misses: 1, entries: 1 })
    // The same id with another secret: not from the cache, and refused.
    const forged = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA')
    t.equal(await v.verify(forged), null)
    t.match(v.stats(), { hits: 1, misses: 2 })
    t.equal(await v.verify('lkt_nope'), null, 'malformed')
    t.equal(await v.verify(''), null)
    t.equal(v.stats().misses, 2, 'a malformed token asks nothing')
    t.equal(await v.verify(`lkt_${crypto.randomUUID().replaceAll('-', '')}_${'A'.repeat(43)}`), null, 'an unknown id')
  })

  await t.test('revokeToken in this process: refused on the very next request', async (t) => {
    const v = new TokenVerifier(db)
    await v.start()
    t.teardown(() => v.close())
    const { id, token } = await mint()
    t.not(await v.verify(token), null)
    t.not(await v.verify(token), null)
    t.equal(await revokeToken(db, id, ws.id), true)
    t.equal(await v.verify(token), null, 'no wait for the notification')
  })

  await t.test('a change by another path arrives by notification', async (t) => {
    const v = new TokenVerifier(db)
    await v.start()
    t.teardown(() => v.close())
    const a = await mint()
    const b = await mint()
    t.not(await v.verify(a.token), null)
    t.not(await v.verify(b.token), null)
    t.equal(v.stats().entries, 2)
    await write('UPDATE tokens SET revoked_at = now() WHERE id = $1', [a.id])
    await until('the revocation notice', async () => (await v.verify(a.token)) === null)
    await write('DELETE FROM tokens WHERE id = $1', [b.id])
    await until('the deletion notice', async () => (await v.verify(b.token)) === null)
    t.equal(v.stats().entries, 0)
  })

  await t.test('a lookup that overlaps a change does not cache its answer', async (t) => {
    let release: () => void = () => undefined
    const gate = new Promise<void>((r) => {
      release = r
    })
    // The real database, its token query held until the change has happened.
    const held: Database = { ...db, query: async (text, params) => {
      if (text.startsWith('SELECT * FROM tokens')) await gate
      return db.query(text, params)
    } }
    const v = new TokenVerifier(held)
    await v.start()
    t.teardown(() => v.close())
    const { id, token } = await mint()
    const pending = v.verify(token)
    v.forget(id)
    release()
    t.not(await pending, null, 'answered from what it read')
    t.equal(v.stats().entries, 0, 'but not kept')
    await v.verify(token)
    t.equal(v.stats().entries, 1, 'the next lookup is kept')
  })

  await t.test('entries expire after ttlMs and the oldest goes first past maxEntries', async (t) => {
    let now = 1_000_000
    const v = new TokenVerifier(db, { ttlMs: 1000, maxEntries: 2, now: () => now })
    await v.start()
    t.teardown(() => v.close())
    const [x, y, z] = [await mint(), await mint(), await mint()]
    await v.verify(x.token)
    now += 999
    await v.verify(x.token)
    t.equal(v.stats().hits, 1, 'within the TTL')
    now += 1
    await v.verify(x.token)
    t.match(v.stats(), { hits: 1, misses: 2 }, 'expired at ttlMs')
    await v.verify(y.token)
    await v.verify(z.token)
    t.equal(v.stats().entries, 2)
    await v.verify(y.token)
    await v.verify(z.token)
    t.equal(v.stats().hits, 3, 'the two newest kept')
    await v.verify(x.token)
    t.equal(v.stats().misses, 5, 'the oldest was evicted')
  })

  await t.test('maxEntries 0: every verification asks the database', async (t) => {
    const v = new TokenVerifier(db, { maxEntries: 0 })
    await v.start()
    t.teardown(() => v.close())
    const { token } = await mint()
    await v.verify(token)
    await v.verify(token)
    t.match(v.stats(), { hits: 0, misses: 2, entries: 0, listening: false })
  })

  await t.test('a verifier that was never started caches nothing', async (t) => {
    const v = new TokenVerifier(db)
    const { token } = await mint()
    await v.verify(token)
    await v.verify(token)
    t.match(v.stats(), { hits: 0, misses: 2, entries: 0 })
  })
}

/** A PGlite on a temporary directory, closed and removed when the test ends. */
async function tempPglite(t: Test): Promise<Database> {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-verifier-'))
  const db = await openPglite(dir, { templateDir: PGLITE_TEMPLATES })
  t.teardown(async () => {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return db
}

t.test('options are checked at construction, naming the option', async (t) => {
  const db = await tempPglite(t)
  t.throws(() => new TokenVerifier(db, { maxEntries: -1 }), /maxEntries/)
  t.throws(() => new TokenVerifier(db, { maxEntries: 1.5 }), /maxEntries/)
  t.throws(() => new TokenVerifier(db, { ttlMs: 0 }), /ttlMs/)
  t.throws(() => new TokenVerifier(db, { ttlMs: Number.NaN }), /ttlMs/)
})

t.test('PGlite', async (t) => {
  const db = await tempPglite(t)
  await migrate(db, PG_MIGRATIONS)
  // One process owns the embedded database: "another path" is SQL that bypasses revokeToken.
  await sharedCases(t, db, async (sql, params) => {
    await db.query(sql, params)
  })
})

t.test('PostgreSQL server', { skip: postgresAvailable() ? false : 'initdb not found (Debian package postgresql)' }, async (t) => {
  const server = await startTestPostgres()
  t.teardown(() => server.stop())
  const db = await openPostgres(server.url, 4)
  t.teardown(() => db.close())
  await migrate(db, PG_MIGRATIONS)
  // Another server's connection.
  const other = new pg.Client({ connectionString: server.url })
  await other.connect()
  t.teardown(() => other.end())
  const write: Writer = async (sql, params) => {
    await other.query(sql, params)
  }
  await sharedCases(t, db, write)

  await t.test('a broken listening connection empties and bypasses the cache until it listens again', async (t) => {
    const v = new TokenVerifier(db)
    await v.start()
    t.teardown(() => v.close())
    const ws = await createWorkspace(db, 'deaf')
    const a = await createToken(db, { workspaceId: ws.id, scopes: ['logs:read'], resources: 'all' })
    await v.verify(a.token)
    t.equal(v.stats().entries, 1)
    // Stall reconnection first, so the deaf period is long enough to observe:
    // new connections to the database are refused (open ones, the pool's, stay).
    const admin = new pg.Client({ connectionString: server.url.replace(/\/lookout$/, '/postgres') })
    await admin.connect()
    t.teardown(() => admin.end())
    await admin.query('ALTER DATABASE lookout ALLOW_CONNECTIONS false')
    await other.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN lookout_token_changes'`)
    await until('the lost subscription', () => !v.stats().listening)
    t.equal(v.stats().entries, 0, 'emptied')
    const before = v.stats().misses
    t.not(await v.verify(a.token), null)
    await write('UPDATE tokens SET revoked_at = now() WHERE id = $1', [a.id])
    t.equal(await v.verify(a.token), null, 'a change made while deaf is seen at once: the database is asked')
    t.equal(v.stats().misses, before + 2)
    t.equal(v.stats().entries, 0, 'nothing kept while deaf')
    await admin.query('ALTER DATABASE lookout ALLOW_CONNECTIONS true')
    await until('listening again', () => v.stats().listening, 20_000)
    const b = await createToken(db, { workspaceId: ws.id, scopes: ['logs:read'], resources: 'all' })
    await v.verify(b.token)
    await v.verify(b.token)
    t.equal(v.stats().entries, 1, 'caching again')
    await write('UPDATE tokens SET revoked_at = now() WHERE id = $1', [b.id])
    await until('the revocation notice on the new connection', async () => (await v.verify(b.token)) === null)
  })

  await t.test('a running server: its apps share one verifier and one listening connection', async (t) => {
    const url = await server.database('lookout_served')
    // The owner socket's app and the HTTP listener's: two apps, one LISTEN.
    const lk = await startTestLookout({ roles: ['api'], env: { DATABASE_URL: url } })
    t.teardown(() => lk.stop())
    const dbName = new URL(url).pathname.slice(1)
    const listening = await other.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN lookout_token_changes'`, [dbName])
    t.equal(listening.rows[0]?.n, 1, 'one LISTEN connection for the process')
    const tok = await lk.token_(['logs:read'])
    const path = `/v1/workspaces/${lk.workspaceId}/resources`
    t.equal((await lk.req('GET', path, undefined, { authorization: `Bearer ${tok}` })).status, 200)
    t.equal((await lk.ownerReq('GET', path)).status, 200, 'the owner socket serves too')
    const direct = new pg.Client({ connectionString: url })
    await direct.connect()
    t.teardown(() => direct.end())
    await direct.query('UPDATE tokens SET revoked_at = now() WHERE revoked_at IS NULL AND name IS DISTINCT FROM $1', ['test'])
    await until('the listener refusing the revoked token', async () =>
      (await lk.req('GET', path, undefined, { authorization: `Bearer ${tok}` })).status === 401)
  })
})
