// The `lookout` command line.
import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { loadConfig, type LookoutConfig } from './config.ts'
import { ALL_ROLES, ROLES, startLookout, type Role } from './runtime.ts'
import { adminOps, callAdmin, type AdminOps, type ConsoleLink, type ConsoleLinkRequest, type StaffRequest, type TokenRequest } from './admin.ts'
import { lockHolder } from './lock.ts'
import { formatStatus, readStatus } from './status.ts'
import { PG_MIGRATIONS } from './migrations.ts'
import { migrate, openPglite, openPostgres } from '../core/index.ts'
import { UsageError } from './errors.ts'
import { countBuffersInHeapLimit } from './lean-runtime.ts'
import { runRestartable } from './backup-live.ts'
import { BACKUP_USAGE, backupCommand } from './backup-cli.ts'
import { DESKTOP_OPTIONS, desktopSocket, listProfilesOnDesktop, setProfileOnDesktop } from './staff-desktop.ts'

const USAGE = `lookout: a streaming log and monitoring pipeline

Usage:
  lookout serve [--role api|loader|monitor]...   run the server (all roles by default)
  lookout status                                 the running server's readiness: each dependency
                                                 (exit 0 when ready, 1 when not)
  lookout workspace create NAME                  create a workspace, print its uuid
  lookout workspace list
  lookout token create --workspace WS --scopes s1,s2 [--resources all|UUID,...]
                       [--name NAME] [--staff STAFF_ID] [--sender]
                                                 create a token, print it once
  lookout token revoke ID
  lookout token list [--workspace WS]            list tokens (never the secrets)
  lookout staff set --workspace WS --staff ID [--name NAME] [--active true|false]
                    [--services true|false] [--time true|false] [--request-history true|false]
                    [--agent true|false]
                                                 create or change a staff member (live permissions
                                                 of tokens created with --staff ID; --agent: an agent
                                                 profile, kind droid in assignment webhooks)
  lookout staff list [--workspace WS]
                    (both take --desktop [--socket PATH]: the running desktop service's profiles,
                    changed while it runs; --workspace defaults to its local workspace)
  lookout console [--workspace WS] [--scopes s1,s2] [--resources all|UUID,...]
                                                 print a one-time sign-in link to the running
                                                 server's web console (a new console token)
  ${BACKUP_USAGE}
  lookout bench ingest [options]                 measure ingest and size a deployment (--help for options)
  lookout desktop [--data-dir DIR]               run the per-user desktop service (owner socket in
                                                 $XDG_RUNTIME_DIR/lookout; desktop/os/README.md)
  lookout collector --url URL --token TOKEN [--data-dir DIR]
                                                 run a remote probe agent for an enrolled collector
                                                 source (outbound HTTP(S) only; --help for options)
  lookout portal connect|status|sync|conflicts|resolve|reviews|review|disconnect
                                                 the desktop service's portal connection and project
                                                 sync (deploy/PORTAL.md; lookout portal help)
  lookout mcp [--read-only | --grant ID] [--socket PATH]
                                                 stdio tool server (MCP) over the running desktop
                                                 service (desktop/mcp/README.md)

Environment: LOOKOUT_HOST, LOOKOUT_PORT, LOOKOUT_DATA_DIR, CLICKHOUSE_URL, NATS_URL,
DATABASE_URL and the other LOOKOUT_* settings in README.md.`

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv
  switch (cmd) {
    case 'serve':
      return serve(rest)
    case 'status': {
      const report = await readStatus(loadConfig())
      process.stdout.write(formatStatus(report))
      return report.status === 'ready' ? 0 : 1
    }
    case 'workspace':
    case 'token':
    case 'staff':
      return admin(cmd, rest)
    case 'backup':
      return backupCommand(rest)
    case 'console':
      return consoleCommand(rest)
    case 'bench':
      return bench(rest)
    case 'desktop':
      return (await import('./desktop.ts')).desktopCommand(rest)
    case 'mcp':
      return (await import('../desktop/index.ts')).mcpCommand(rest)
    case 'collector':
      return (await import('../collector/index.ts')).collectorCommand(rest)
    case 'portal': {
      const portal = await import('./portal-cli.ts')
      if (rest[0] === undefined || rest[0] === 'help') {
        process.stdout.write(`${portal.PORTAL_USAGE}\n`)
        return rest[0] === undefined ? 2 : 0
      }
      return portal.portalCommand(rest)
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE + '\n')
      return cmd === undefined ? 2 : 0
    default:
      throw new UsageError(`unknown command ${cmd}\n\n${USAGE}`)
  }
}

async function consoleCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { workspace: { type: 'string' }, scopes: { type: 'string' }, resources: { type: 'string' } } })
  const config = loadConfig()
  const list = (v: string | undefined) => v?.split(',').map((s) => s.trim()).filter((s) => s !== '')
  const req: ConsoleLinkRequest = {
    workspace: values.workspace,
    scopes: list(values.scopes),
    resources: values.resources === undefined || values.resources === 'all' ? 'all' : list(values.resources),
  }
  // The link names the running server's address, so only the running server can make it.
  const link = await callAdmin(config.dataDir, 'POST', '/admin/console/link', req) as ConsoleLink | null
  if (link === null) throw new Error(`no server answers on ${config.dataDir}/admin.sock: start it first (npm start)`)
  process.stderr.write(`one-time sign-in link (valid ${link.expires_in_seconds / 60} minutes, workspace ${link.workspace_id}, token ${link.token_id}):\n`)
  process.stdout.write(link.url + '\n')
  return 0
}

async function bench(args: string[]): Promise<number> {
  const [what, ...rest] = args
  if (what !== 'ingest') throw new UsageError('lookout bench ingest [options] (--help for options)')
  // Loaded on demand: the harness needs dev dependencies (the OpenTelemetry serializers).
  const { benchIngest } = await import('../bench/ingest/index.ts')
  return benchIngest(rest)
}

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { role: { type: 'string', multiple: true } } })
  const roles = (values.role ?? ALL_ROLES) as Role[]
  for (const r of roles) if (!(r in ROLES)) throw new UsageError(`unknown role ${r} (api, loader, monitor)`)
  // Read again at each start: a restore on the running service may have put another sealing key in place.
  await runRestartable(loadConfig().dataDir, async (liveRestore) => {
    const config = loadConfig()
    const lookout = await startLookout(config, { roles, secretKeyFile: true, liveRestore })
    countBuffersInHeapLimit()
    process.stdout.write(`lookout serving ${roles.join(', ')}${lookout.url ? ` on ${lookout.url}` : ''} (data: ${config.dataDir})\n`)
    return lookout
  }, (line) => process.stdout.write(`lookout: ${line}\n`), { doing: 'draining', what: 'drain' })
  process.stdout.write('stopped\n')
  return 0
}

/** Opens the store directly, when no server holds the data directory. */
async function withDirectStore<T>(config: LookoutConfig, fn: (ops: AdminOps) => Promise<T>): Promise<T> {
  if (config.databaseUrl === undefined) {
    const holder = lockHolder(config.dataDir)
    if (holder !== null) throw new Error(`a server (pid ${holder}) holds ${config.dataDir} but its admin socket does not answer; retry when it has started`)
  }
  const db = config.databaseUrl === undefined ? await openPglite(join(config.dataDir, 'postgres'), { templateDir: config.cacheDir, migrations: PG_MIGRATIONS }) : await openPostgres(config.databaseUrl)
  try {
    await migrate(db, PG_MIGRATIONS)
    return await fn(adminOps(db))
  } finally {
    await db.close()
  }
}

async function run<T>(config: LookoutConfig, viaSocket: () => Promise<unknown | null>, direct: (ops: AdminOps) => Promise<T>): Promise<unknown> {
  if (config.databaseUrl === undefined) {
    const r = await viaSocket()
    if (r !== null) return r
  }
  return withDirectStore(config, direct)
}

async function admin(noun: string, args: string[]): Promise<number> {
  const config = loadConfig()
  const [verb, ...rest] = args
  const out = process.stdout
  if (noun === 'workspace' && verb === 'create') {
    const name = rest.join(' ').trim()
    if (name === '') throw new UsageError('lookout workspace create NAME')
    const ws = await run(config, () => callAdmin(config.dataDir, 'POST', '/admin/workspaces', { name }), (o) => o.createWorkspace(name)) as { id: string }
    out.write(ws.id + '\n')
    return 0
  }
  if (noun === 'workspace' && verb === 'list') {
    const list = await run(config, () => callAdmin(config.dataDir, 'GET', '/admin/workspaces'), (o) => o.listWorkspaces()) as { id: string; name: string }[]
    for (const w of list) out.write(`${w.id}\t${w.name}\n`)
    return 0
  }
  if (noun === 'token' && verb === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        workspace: { type: 'string' }, scopes: { type: 'string' }, resources: { type: 'string' },
        name: { type: 'string' }, staff: { type: 'string' }, sender: { type: 'boolean' },
      },
    })
    if (values.workspace === undefined || values.scopes === undefined) throw new UsageError('token create needs --workspace and --scopes')
    const resources = values.resources === undefined || values.resources === 'all' ? 'all' : values.resources.split(',').map((s) => s.trim())
    const req: TokenRequest = {
      workspace: values.workspace,
      scopes: values.scopes.split(',').map((s) => s.trim()).filter((s) => s !== ''),
      resources,
      name: values.name,
      staff: values.staff === undefined ? null : Number(values.staff),
      kind: values.sender === true ? 'sender' : 'access',
    }
    if (req.kind === 'sender' && (resources === 'all' || resources.length !== 1 || req.scopes.join() !== 'logs:write')) {
      throw new UsageError('a sender token has exactly --scopes logs:write and one --resources UUID')
    }
    const t = await run(config, () => callAdmin(config.dataDir, 'POST', '/admin/tokens', req), (o) => o.createToken(req)) as { id: string; token: string }
    process.stderr.write(`token ${t.id} (shown once):\n`)
    out.write(t.token + '\n')
    return 0
  }
  if (noun === 'token' && verb === 'revoke') {
    const id = rest[0]
    if (id === undefined) throw new UsageError('lookout token revoke ID')
    const r = await run(config, () => callAdmin(config.dataDir, 'POST', `/admin/tokens/${encodeURIComponent(id)}/revoke`), async (o) => ({ revoked: await o.revokeToken(id) })) as { revoked: boolean }
    out.write(r.revoked ? `revoked ${id}\n` : `no active token ${id}\n`)
    return r.revoked ? 0 : 1
  }
  if (noun === 'token' && verb === 'list') {
    const { values } = parseArgs({ args: rest, options: { workspace: { type: 'string' } } })
    const q = values.workspace === undefined ? '' : `?workspace=${encodeURIComponent(values.workspace)}`
    const list = await run(config, () => callAdmin(config.dataDir, 'GET', `/admin/tokens${q}`), (o) => o.listTokens(values.workspace)) as Record<string, unknown>[]
    for (const t of list) out.write(JSON.stringify(t) + '\n')
    return 0
  }
  if (noun === 'staff') return staff(config, verb, rest)
  throw new UsageError(`unknown command ${noun} ${verb ?? ''}\n\n${USAGE}`)
}

function flag(name: string, v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined
  if (v === 'true' || v === 'false') return v === 'true'
  throw new UsageError(`--${name} takes true or false`)
}

async function staff(config: LookoutConfig, verb: string | undefined, args: string[]): Promise<number> {
  if (verb === 'set') {
    const { values } = parseArgs({
      args,
      options: {
        workspace: { type: 'string' }, staff: { type: 'string' }, name: { type: 'string' }, active: { type: 'string' },
        services: { type: 'string' }, time: { type: 'string' }, 'request-history': { type: 'string' }, agent: { type: 'string' },
        ...DESKTOP_OPTIONS,
      },
    })
    const desktop = desktopSocket(values)
    if (values.staff === undefined || (values.workspace === undefined && desktop === null)) throw new UsageError('staff set needs --staff, and --workspace unless --desktop')
    const req: StaffRequest = {
      workspace: values.workspace ?? '',
      staff_id: Number(values.staff),
      name: values.name,
      active: flag('active', values.active),
      can_manage_services: flag('services', values.services),
      can_log_time: flag('time', values.time),
      can_read_request_history: flag('request-history', values['request-history']),
      agent: flag('agent', values.agent),
    }
    const s = desktop !== null
      ? await setProfileOnDesktop(desktop, req, values.workspace)
      : await run(config, () => callAdmin(config.dataDir, 'POST', '/admin/staff', req), (o) => o.setStaff(req))
    process.stdout.write(JSON.stringify(s) + '\n')
    return 0
  }
  if (verb === 'list') {
    const { values } = parseArgs({ args, options: { workspace: { type: 'string' }, ...DESKTOP_OPTIONS } })
    const desktop = desktopSocket(values)
    const q = values.workspace === undefined ? '' : `?workspace=${encodeURIComponent(values.workspace)}`
    const list = (desktop !== null
      ? await listProfilesOnDesktop(desktop, values.workspace)
      : await run(config, () => callAdmin(config.dataDir, 'GET', `/admin/staff${q}`), (o) => o.listStaff(values.workspace))) as Record<string, unknown>[]
    for (const m of list) process.stdout.write(JSON.stringify(m) + '\n')
    return 0
  }
  throw new UsageError(`unknown command staff ${verb ?? ''}\n\n${USAGE}`)
}
