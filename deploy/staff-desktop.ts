// `lookout staff set|list --desktop`: the running desktop service's staff and
// agent profiles, through its owner-socket routes (api/desktop/profile-routes.ts),
// since the service holds its data directory while it runs.
import { desktopPaths } from '../desktop/index.ts'
import type { StaffRequest } from './admin.ts'
import { ownerBody, ownerCall } from './owner-socket.ts'

export const DESKTOP_OPTIONS = { desktop: { type: 'boolean' }, socket: { type: 'string' } } as const

/** The owner socket to use: --socket, or the desktop's own with --desktop; null for the server's admin path. */
export function desktopSocket(values: { desktop?: boolean; socket?: string }): string | null {
  if (values.socket !== undefined) return values.socket
  return values.desktop === true ? desktopPaths().socketPath : null
}

function query(workspace: string | undefined): string {
  return workspace === undefined ? '' : `?workspace_id=${encodeURIComponent(workspace)}`
}

export async function setProfileOnDesktop(socketPath: string, req: StaffRequest, workspace: string | undefined): Promise<unknown> {
  const { workspace: _ws, staff_id: staffId, ...patch } = req
  // Only the fields given: the route keeps the others (and refuses an empty change).
  const body = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
  const path = `/v1/profiles/${Number.isInteger(staffId) ? staffId : encodeURIComponent(String(staffId))}${query(workspace)}`
  return ownerBody(await ownerCall(socketPath, 'PUT', path, body), 'lookout staff set')
}

export async function listProfilesOnDesktop(socketPath: string, workspace: string | undefined): Promise<unknown[]> {
  return (ownerBody(await ownerCall(socketPath, 'GET', `/v1/profiles${query(workspace)}`), 'lookout staff list') as { items: unknown[] }).items
}
