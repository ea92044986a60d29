// Resource SSH keys: write-only private key and passphrase, checked by sshpk,
// sealed with AES-256-GCM under LOOKOUT_SECRET_KEY, fingerprints exactly as
// ssh-keygen prints them, and no key material in any response or log line.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { buildApp } from '../../../api/index.ts'
import { openSshKey } from '../../../workspace/internal.ts'
import { SecretBox } from '../../../core/index.ts'
import { startTestLookout, retryWhenShed } from '../../helpers/lookout.ts'

// Real keys from the real ssh-keygen, made before the server starts (key generation blocks
// the event loop, which the server's overload guard would notice).
const keyDir = mkdtempSync(join(tmpdir(), 'lookout-ssh-'))
t.teardown(() => rmSync(keyDir, { recursive: true, force: true }))
function keygen(name: string, args: string[], passphrase = ''): { priv: string; fingerprint: string } {
  const f = join(keyDir, name)
  execFileSync('ssh-keygen', ['-q', ...args, '-N', passphrase, '-C', `${name}@test`, '-f', f])
  const fp = execFileSync('ssh-keygen', ['-lf', `${f}.pub`]).toString().split(' ')[1] as string
  return { priv: readFileSync(f, 'utf8'), fingerprint: fp }
}
const ed = keygen('ed', ['-t', 'ed25519'])
// Two bcrypt rounds instead of ssh-keygen's 16: sshpk's bcrypt in JavaScript takes about half a
// second of CPU per open at 16, and this key is opened a dozen times; the format is the same.
const edEnc = keygen('ed-enc', ['-t', 'ed25519', '-a', '2'], 'correct horse battery')
const ec = keygen('ec', ['-t', 'ecdsa', '-b', '384'])
const rsaPem = keygen('rsa-pem', ['-t', 'rsa', '-b', '2048', '-m', 'PEM'], 'pem-passphrase')
const rsaShort = keygen('rsa-short', ['-t', 'rsa', '-b', '1024'])
const pub = readFileSync(join(keyDir, 'ed.pub'), 'utf8')
const secretKey = randomBytes(32)
// API only: with the monitor role (the managed runtime) the stored keys' hosts (documentation names and
// addresses here) would be dialled to install them; test/monitor/neura-ssh.test.ts covers the runtime.
const lk = await startTestLookout({ roles: ['api'], env: { LOOKOUT_SECRET_KEY: secretKey.toString('base64') } })
t.teardown(() => lk.stop())
retryWhenShed(lk)
const P = `/v1/workspaces/${lk.workspaceId}`
const as = (token: string) => ({ authorization: `Bearer ${token}` })

const body = (over: Record<string, unknown> = {}) => ({ alias: 'web-01', host: 'web-01.example.net', username: 'deploy', private_key: ed.priv, ...over })
/** A piece of the key that must never come back. */
const marker = (priv: string) => (priv.split('\n')[2] as string).slice(0, 40)

t.test('PUT stores, GET describes; fingerprint as ssh-keygen -lf prints it', async (t) => {
  const rid = await lk.resource('ssh-a')
  const url = `${P}/resources/${rid}/ssh-key`
  t.equal((await lk.req('GET', url)).status, 404, 'no key yet')
  const put = await lk.req('PUT', url, body())
  t.equal(put.status, 200)
  t.match(put.body, {
    resource_id: rid, alias: 'web-01', destination: 'deploy@web-01.example.net:22', port: 22,
    fingerprint: ed.fingerprint, key_type: 'ed25519', revision: 1, synchronization: { status: 'pending' }, host_trust: { mode: 'first_use', pinned_fingerprints: [] },
  })
  t.match(ed.fingerprint, /^SHA256:[A-Za-z0-9+/]{43}$/, 'ssh-keygen prints base64 without padding')
  const got = await lk.req('GET', url)
  t.same(got.body, put.body)
  for (const r of [put, got]) {
    const text = JSON.stringify(r.body)
    t.notOk(text.includes('private_key') || text.includes('passphrase'), 'no secret field names')
    t.notOk(text.includes(marker(ed.priv)), 'no key material')
  }
  // Rotation: a new key replaces the old one.
  const rot = await lk.req('PUT', url, body({ private_key: ec.priv, port: 2222, username: 'ops.user-1_x' }))
  t.equal(rot.status, 200)
  t.match(rot.body, { fingerprint: ec.fingerprint, key_type: 'ecdsa', key_bits: 384, port: 2222, revision: 2, destination: 'ops.user-1_x@web-01.example.net:2222' })
  const enc = await lk.req('PUT', url, body({ private_key: edEnc.priv, passphrase: 'correct horse battery' }))
  t.equal(enc.status, 200)
  t.equal(enc.body.fingerprint, edEnc.fingerprint, 'an encrypted key opens with its passphrase')
  const pem = await lk.req('PUT', url, body({ private_key: rsaPem.priv, passphrase: 'pem-passphrase', host: '2001:db8::10' }))
  t.equal(pem.status, 200)
  t.match(pem.body, { fingerprint: rsaPem.fingerprint, key_type: 'rsa', key_bits: 2048, destination: 'deploy@[2001:db8::10]:22' })
})

t.test('sealed at rest with AES-256-GCM under the configured key', async (t) => {
  const rid = await lk.resource('ssh-sealed')
  await lk.req('PUT', `${P}/resources/${rid}/ssh-key`, body({ alias: 'sealed', private_key: edEnc.priv, passphrase: 'correct horse battery' }))
  const row = (await lk.lookout.db.query<{ sealed: Uint8Array; sealed_with: string }>('SELECT sealed, sealed_with FROM resource_ssh_keys WHERE resource_id = $1', [rid])).rows[0]
  t.ok(row)
  const stored = Buffer.from(row?.sealed as Uint8Array)
  t.notOk(stored.toString('latin1').includes(marker(edEnc.priv)), 'no plaintext key in the database')
  t.notOk(stored.toString('latin1').includes('correct horse'), 'no plaintext passphrase in the database')
  const box = new SecretBox(secretKey)
  t.equal(row?.sealed_with, box.keyId)
  t.same(await openSshKey(lk.lookout.db, box, lk.workspaceId, rid), { private_key: edEnc.priv, passphrase: 'correct horse battery' })
  await t.rejects(openSshKey(lk.lookout.db, new SecretBox(randomBytes(32)), lk.workspaceId, rid), 'another key does not open it')
  // A box copied onto another record does not open there.
  const other = await lk.resource('ssh-moved')
  await lk.req('PUT', `${P}/resources/${other}/ssh-key`, body({ alias: 'moved' }))
  await lk.lookout.db.query('UPDATE resource_ssh_keys SET sealed = $1 WHERE resource_id = $2', [stored, other])
  await t.rejects(openSshKey(lk.lookout.db, box, lk.workspaceId, other))
  const tampered = Buffer.from(stored)
  tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1
  t.throws(() => box.open(tampered, `lookout:ssh-key:v1:${lk.workspaceId}:${rid}`))
})

t.test('ResourceSSHKeySet validation at its edges', async (t) => {
  const rid = await lk.resource('ssh-validate')
  const url = `${P}/resources/${rid}/ssh-key`
  const vb = (over: Record<string, unknown> = {}) => body({ alias: 'validate', ...over })
  const bad = async (over: Record<string, unknown>, loc: (string | number)[], type: string) => {
    const r = await lk.req('PUT', url, vb(over))
    t.equal(r.status, 422, `${JSON.stringify(over).slice(0, 60)}`)
    t.same(r.body.detail[0].loc, loc)
    t.equal(r.body.detail[0].type, type)
    t.notOk(JSON.stringify(r.body).includes(marker(ed.priv)), 'the key is not echoed')
    return r
  }
  await bad({ alias: 'Web' }, ['body', 'alias'], 'string_pattern_mismatch')
  await bad({ alias: '1web' }, ['body', 'alias'], 'string_pattern_mismatch')
  await bad({ alias: 'web_1' }, ['body', 'alias'], 'string_pattern_mismatch')
  await bad({ alias: '' }, ['body', 'alias'], 'string_too_short')
  await bad({ alias: 'a'.repeat(64) }, ['body', 'alias'], 'string_too_long')
  t.equal((await lk.req('PUT', url, vb({ alias: `a${'-9'.repeat(31)}` }))).status, 200, 'alias of 63 accepted')
  await bad({ username: '.hidden' }, ['body', 'username'], 'string_pattern_mismatch')
  await bad({ username: '-oops' }, ['body', 'username'], 'string_pattern_mismatch')
  await bad({ username: 'a b' }, ['body', 'username'], 'string_pattern_mismatch')
  await bad({ username: 'u'.repeat(65) }, ['body', 'username'], 'string_too_long')
  t.equal((await lk.req('PUT', url, vb({ username: `_${'u'.repeat(63)}` }))).status, 200, 'username of 64 starting with _ accepted')
  await bad({ host: '' }, ['body', 'host'], 'string_too_short')
  await bad({ host: 'h'.repeat(251) }, ['body', 'host'], 'string_too_long')
  await bad({ host: '-oProxyCommand=sh' }, ['body', 'host'], 'value_error')
  await bad({ host: 'two words' }, ['body', 'host'], 'value_error')
  t.equal((await lk.req('PUT', url, vb({ host: 'h'.repeat(250) }))).status, 200, 'host of 250 accepted')
  await bad({ port: 0 }, ['body', 'port'], 'greater_than_equal')
  await bad({ port: 65536 }, ['body', 'port'], 'less_than_equal')
  await bad({ port: '22' }, ['body', 'port'], 'int_type')
  t.equal((await lk.req('PUT', url, vb({ port: 65535 }))).body.port, 65535)
  await bad({ private_key: '' }, ['body', 'private_key'], 'string_too_short')
  const long = await bad({ private_key: ed.priv + ' '.repeat(32769 - ed.priv.length) }, ['body', 'private_key'], 'string_too_long')
  t.notOk('input' in long.body.detail[0], 'no input echoed for a secret field')
  const longPass = await bad({ passphrase: 'p'.repeat(1025) }, ['body', 'passphrase'], 'string_too_long')
  t.notOk(JSON.stringify(longPass.body).includes('pppp'), 'the passphrase is not echoed')
  await bad({ fingerprint: 'x' }, ['body', 'fingerprint'], 'extra_forbidden')
  const missing = await lk.req('PUT', url, { alias: 'x', host: 'h', username: 'u' })
  t.same(missing.body.detail[0], { loc: ['body', 'private_key'], msg: 'Field required', type: 'missing' })
  // The key itself.
  await bad({ private_key: 'not a key at all' }, ['body', 'private_key'], 'ssh_key_invalid')
  await bad({ private_key: pub }, ['body', 'private_key'], 'ssh_key_invalid')
  await bad({ private_key: edEnc.priv }, ['body', 'passphrase'], 'ssh_key_encrypted')
  await bad({ private_key: edEnc.priv, passphrase: 'wrong horse' }, ['body', 'passphrase'], 'ssh_key_passphrase')
  await bad({ private_key: rsaPem.priv, passphrase: 'not-it' }, ['body', 'passphrase'], 'ssh_key_passphrase')
  await bad({ private_key: rsaPem.priv }, ['body', 'passphrase'], 'ssh_key_encrypted')
  await bad({ private_key: rsaShort.priv }, ['body', 'private_key'], 'ssh_key_type')
  const broken = ed.priv.replace(/\n(.)/, (_m, c: string) => `\n${c === 'A' ? 'B' : 'A'}`)
  const r = await lk.req('PUT', url, vb({ private_key: broken.slice(0, broken.length / 2) }))
  t.equal(r.status, 422, 'a truncated key')
  t.equal((await lk.req('GET', url)).body.fingerprint, ed.fingerprint, 'failed attempts left the stored key alone')
})

t.test('aliases are unique in the workspace; DELETE removes everything', async (t) => {
  const a = await lk.resource('ssh-alias-a')
  const b = await lk.resource('ssh-alias-b')
  t.equal((await lk.req('PUT', `${P}/resources/${a}/ssh-key`, body({ alias: 'shared' }))).status, 200)
  const dup = await lk.req('PUT', `${P}/resources/${b}/ssh-key`, body({ alias: 'shared' }))
  t.equal(dup.status, 409)
  t.equal(dup.body.detail[0].type, 'LOOKOUT_CONFLICT')
  t.equal((await lk.req('PUT', `${P}/resources/${a}/ssh-key`, body({ alias: 'shared', port: 23 }))).status, 200, 'a resource keeps its own alias')
  const del = await lk.req('DELETE', `${P}/resources/${a}/ssh-key`)
  t.equal(del.status, 200)
  t.same(del.body, { resource_id: a, removed: true, alias: 'shared', destination: 'deploy@web-01.example.net:23', fingerprint: ed.fingerprint })
  t.equal((await lk.req('GET', `${P}/resources/${a}/ssh-key`)).status, 404)
  t.equal((await lk.req('DELETE', `${P}/resources/${a}/ssh-key`)).status, 404)
  const left = await lk.lookout.db.query('SELECT 1 FROM resource_ssh_keys WHERE resource_id = $1', [a])
  t.equal(left.rows.length, 0, 'the sealed key is gone')
  t.equal((await lk.req('PUT', `${P}/resources/${b}/ssh-key`, body({ alias: 'shared' }))).status, 200, 'the alias is free again')
})

t.test('scopes, grants and missing resources', async (t) => {
  const rid = await lk.resource('ssh-scope')
  const url = `${P}/resources/${rid}/ssh-key`
  await lk.req('PUT', url, body({ alias: 'scoped' }))
  const reader = await lk.token_(['logs:read'], [rid])
  t.equal((await lk.req('GET', url, undefined, as(reader))).status, 200, 'reading metadata needs only the resource grant')
  t.equal((await lk.req('PUT', url, body({ alias: 'scoped' }), as(reader))).status, 403)
  t.equal((await lk.req('DELETE', url, undefined, as(reader))).status, 403)
  const other = await lk.resource('ssh-scope-other')
  const elsewhere = await lk.token_(['resources:write'], [other])
  for (const m of ['GET', 'PUT', 'DELETE']) {
    t.equal((await lk.req(m, url, m === 'PUT' ? body({ alias: 'scoped' }) : undefined, as(elsewhere))).status, 403, `${m} outside the grant`)
  }
  t.equal((await lk.req('PUT', `${P}/resources/${randomUUID()}/ssh-key`, body())).status, 404)
  t.equal((await lk.req('GET', `${P}/resources/${randomUUID()}/ssh-key`)).status, 404)
  t.equal((await lk.req('GET', url, undefined, { authorization: '' })).status, 401)
})

t.test('without LOOKOUT_SECRET_KEY a PUT is refused with a clear 503', async (t) => {
  const app = await buildApp({ db: lk.lookout.db, ingest: lk.lookout.ingest as never, store: lk.lookout.store, maxEventLoopDelayMs: 0 })
  t.teardown(() => app.close())
  const rid = await lk.resource('ssh-nokey')
  const r = await app.inject({ method: 'PUT', url: `${P}/resources/${rid}/ssh-key`, headers: as(lk.token), payload: body({ alias: 'nokey' }) })
  t.equal(r.statusCode, 503)
  const b = r.json()
  t.equal(b.detail[0].type, 'LOOKOUT_SECRET_KEY_MISSING')
  t.match(b.detail[0].msg, /LOOKOUT_SECRET_KEY/)
  t.equal((await app.inject({ method: 'GET', url: `${P}/resources/${rid}/ssh-key`, headers: as(lk.token) })).statusCode, 404, 'reads still work')
})

t.test('no secret in any log line, whatever happens', async (t) => {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk))
      cb()
    },
  })
  const app = await buildApp({
    db: lk.lookout.db, ingest: lk.lookout.ingest as never, store: lk.lookout.store, secretKey, maxEventLoopDelayMs: 0,
    logger: { level: 'trace', stream },
  })
  t.teardown(() => app.close())
  const rid = await lk.resource('ssh-logs')
  const url = `${P}/resources/${rid}/ssh-key`
  const send = (payload: unknown, raw = false) => app.inject({
    method: 'PUT', url, headers: { ...as(lk.token), 'content-type': 'application/json' },
    payload: raw ? (payload as string) : JSON.stringify(payload),
  })
  const statuses = [
    (await send(body({ alias: 'logs', private_key: edEnc.priv, passphrase: 'correct horse battery' }))).statusCode,
    (await send(body({ alias: 'logs', private_key: edEnc.priv, passphrase: 'wrong horse battery' }))).statusCode,
    (await send(body({ alias: 'logs', private_key: rsaPem.priv, passphrase: 'pem-passphrase' }))).statusCode,
    (await send(body({ alias: 'logs', private_key: rsaPem.priv + 'x'.repeat(32768) }))).statusCode,
    (await send(body({ alias: 'logs', private_key: ed.priv, passphrase: 'correct horse battery'.repeat(60) }))).statusCode,
    (await send(body({ alias: 'BAD', private_key: ed.priv, extra: ed.priv }))).statusCode,
  ]
  // A body that is not JSON: the parser's message would quote the text around the error.
  const raw = `{"alias":"logs","host":"h","username":"u","private_key":"${ed.priv.replaceAll('\n', '\\n')}" oops}`
  const jsonErr = await send(raw, true)
  statuses.push(jsonErr.statusCode)
  t.same(statuses, [200, 422, 200, 422, 422, 422, 422])
  t.notOk(jsonErr.body.includes(marker(ed.priv)), 'a JSON error does not quote the key')
  t.ok(lines.length >= 14, `the app logged (${lines.length} lines)`)
  const all = lines.join('\n')
  for (const [name, secret] of [
    ['ed25519 key', marker(ed.priv)], ['encrypted key', marker(edEnc.priv)], ['PEM key', marker(rsaPem.priv)],
    ['passphrase', 'correct horse'], ['wrong passphrase', 'wrong horse'], ['PEM passphrase', 'pem-passphrase'],
    ['key header', 'PRIVATE KEY'],
  ]) t.notOk(all.includes(secret as string), `no ${name} in the logs`)
  t.notOk(all.toLowerCase().includes('bearer'), 'no credential in the logs')
})
