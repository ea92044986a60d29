// Agent (droid) and staff profiles on a running desktop service: `lookout staff
// set|list --desktop` goes through the owner-socket routes while the service
// holds its data directory, and the routes refuse grants and bad input.
import t from 'tap'
import { join } from 'node:path'
import { startTestDesktop } from './desktop-helpers.ts'
import { cli as runCli } from './portal/portal-helpers.ts'

const td = await startTestDesktop({ sizeCapEveryMs: 3_600_000 })
t.teardown(() => td.stop())

const cli = async (args: string[], env: NodeJS.ProcessEnv = td.env) => {
  const r = await runCli(env, args)
  return { code: r.code, out: r.stdout, err: r.stderr }
}

t.test('lookout staff set --desktop changes a profile while the service runs', async (t) => {
  const set = await cli(['staff', 'set', '--desktop', '--staff', '9', '--name', 'build agent', '--agent', 'true'])
  t.equal(set.code, 0, set.err)
  const made = JSON.parse(set.out)
  t.match(made, { workspace_id: td.workspaceId, staff_id: 9, name: 'build agent', agent: true, active: true })
  const listed = await td.owner('GET', '/v1/profiles')
  t.equal(listed.status, 200)
  t.same(listed.body.items.map((p: { staff_id: number; agent: boolean }) => [p.staff_id, p.agent]), [[9, true]], 'the running service holds it')
  // A later change keeps the fields it does not name.
  const off = await cli(['staff', 'set', '--desktop', '--staff', '9', '--agent', 'false'])
  t.equal(off.code, 0, off.err)
  t.match(JSON.parse(off.out), { staff_id: 9, name: 'build agent', agent: false })
  const list = await cli(['staff', 'list', '--desktop'])
  t.equal(list.code, 0, list.err)
  t.same(list.out.trim().split('\n').map((l) => JSON.parse(l)).map((p: { name: string; agent: boolean }) => [p.name, p.agent]), [['build agent', false]])
  // --socket names the socket explicitly; --workspace of another workspace is refused.
  const explicit = await cli(['staff', 'list', '--socket', td.socketPath])
  t.equal(explicit.code, 0, explicit.err)
  const other = await cli(['staff', 'set', '--desktop', '--staff', '9', '--agent', 'true', '--workspace', '00000000-0000-4000-8000-000000000000'])
  t.equal(other.code, 1)
  t.match(other.err, /lookout staff set: /)
})

t.test('the profile routes check their input and are owner-only', async (t) => {
  const bad = async (path: string, body: unknown, re: RegExp) => {
    const r = await td.owner('PUT', path, body)
    t.equal(r.status, 400, JSON.stringify(r.body))
    t.match(r.body.error.message, re)
  }
  await bad('/v1/profiles/9', {}, /fewer than 1|at least/i)
  await bad('/v1/profiles/9', { agent: 'yes' }, /boolean/)
  await bad('/v1/profiles/9', { agent: true, role: 'admin' }, /Extra inputs are not permitted/)
  await bad('/v1/profiles/0', { agent: true }, /staff_id|>= 1/)
  await bad('/v1/profiles/9', { name: 'x'.repeat(161) }, /160|longer/)
  const g = await td.grant(['project:read', 'project:write'])
  const acted = await td.owner('GET', '/v1/profiles', undefined, { 'x-lookout-act-as-grant': g.id })
  t.equal(acted.status, 403, 'a grant never reaches it')
  const put = await td.owner('PUT', '/v1/profiles/9', { agent: true }, { 'x-lookout-act-as-grant': g.id })
  t.equal(put.status, 403)
})

t.test('without a running desktop, the CLI says so in one line', async (t) => {
  const env = { ...td.env, XDG_RUNTIME_DIR: join(td.base, 'nowhere') }
  const r = await cli(['staff', 'list', '--desktop'], env)
  t.equal(r.code, 1)
  t.match(r.err, /the desktop service is not running/)
  t.equal(r.err.trim().split('\n').length, 1, r.err)
})
