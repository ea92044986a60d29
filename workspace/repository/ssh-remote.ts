// ssh:// repositories: git reaches them with the resource's registered SSH key
// and the host trust the managed runtime pinned for it (monitor/tunnel's
// strict client as GIT_SSH_COMMAND), never with anything of the server's own.
// The URL must point at the key's destination (same host and port; same user
// when it names one), so a key is only ever offered to the host it was
// registered for.
import { SshTunnels, sshCommand, type RuntimeSecrets, type SshCommand } from '../../tunnel/index.ts'
import type { Sql } from '../../core/index.ts'
import { RepositoryNotConfiguredError } from '../errors.ts'
import type { SshRemote } from './source.ts'

const TRUST_TIMEOUT_MS = 15_000
const CONNECT_TIMEOUT_MS = 30_000

/** A 409 unless the resource's key can serve this remote on this server. */
export async function checkSshRemote(db: Sql, workspaceId: string, resourceId: string, remote: SshRemote, runtime: RuntimeSecrets | undefined): Promise<void> {
  if (runtime === undefined) throw new RepositoryNotConfiguredError('ssh:// repositories need LOOKOUT_SECRET_KEY on this server (the registered SSH key is sealed with it)')
  const r = await db.query<{ host: string; port: number; username: string }>(
    'SELECT host, port, username FROM resource_ssh_keys WHERE workspace_id = $1 AND resource_id = $2', [workspaceId, resourceId])
  const key = r.rows[0]
  if (key === undefined) throw new RepositoryNotConfiguredError('an ssh:// repository needs the resource\'s SSH key (PUT …/ssh-key)')
  if (key.host.toLowerCase() !== remote.host.toLowerCase() || key.port !== remote.port) {
    throw new RepositoryNotConfiguredError(`the repository URL's host and port must be the SSH key's destination (${key.host}:${key.port})`)
  }
  if (remote.user !== null && remote.user !== key.username) throw new RepositoryNotConfiguredError(`the repository URL's user must be the SSH key's user (${key.username})`)
}

/** Makes the GIT_SSH_COMMAND for one git transfer: key opened, host trust pinned (or checked), files private. */
export function sshCommandFor(runtime: RuntimeSecrets, workDir: string, workspaceId: string, resourceId: string): () => Promise<SshCommand> {
  return async () => {
    const e = await runtime.sshEndpoint(workspaceId, resourceId)
    if (e === null) throw new Error('the resource\'s SSH key cannot be opened on this server')
    const tunnels = new SshTunnels(runtime, workDir)
    const trusted = await tunnels.trust(e, TRUST_TIMEOUT_MS)
    return sshCommand(trusted, workDir, CONNECT_TIMEOUT_MS)
  }
}
