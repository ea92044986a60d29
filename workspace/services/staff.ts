// Staff members: the live permission behind staff-audience tokens. A token
// created with `--staff ID` acts as staff only while the workspace's staff
// record for that id is active and grants the permission, checked on every
// request (deactivating a member takes effect at once, without revoking tokens).
import type { Sql } from '../../core/index.ts'
import type { Principal } from '../identity/tokens.ts'
import { BadRequestError } from '../../core/index.ts'
import { StaffRequiredError } from '../errors.ts'
import { isUuid } from '../identity/tokens.ts'

export const STAFF_PERMISSIONS = {
  manageServices: 'can_manage_services',
  logTime: 'can_log_time',
  readRequestHistory: 'can_read_request_history',
} as const
export type StaffPermission = (typeof STAFF_PERMISSIONS)[keyof typeof STAFF_PERMISSIONS]

const PERMISSION_WORDS: Record<StaffPermission, string> = {
  can_manage_services: 'manage services',
  can_log_time: 'record time entries',
  can_read_request_history: 'read the request history',
}

export interface StaffMember {
  workspace_id: string
  staff_id: number
  name: string
  active: boolean
  can_manage_services: boolean
  can_log_time: boolean
  can_read_request_history: boolean
  /** An agent profile: assignment webhooks name its kind droid. */
  agent: boolean
  created_at: string
  updated_at: string
}

export interface StaffPatch {
  name?: string
  active?: boolean
  can_manage_services?: boolean
  can_log_time?: boolean
  can_read_request_history?: boolean
  agent?: boolean
}

interface Row extends Omit<StaffMember, 'created_at' | 'updated_at'> {
  created_at: Date
  updated_at: Date
}

function toStaff(r: Row): StaffMember {
  return { ...r, created_at: new Date(r.created_at).toISOString(), updated_at: new Date(r.updated_at).toISOString() }
}

const FLAGS = ['active', 'can_manage_services', 'can_log_time', 'can_read_request_history', 'agent'] as const

function checkId(workspaceId: string, staffId: number): void {
  if (!isUuid(workspaceId)) throw new BadRequestError('workspace must be a uuid')
  if (!Number.isInteger(staffId) || staffId <= 0) throw new BadRequestError('staff id must be an integer > 0')
}

/** Creates or updates a staff member; fields left out keep their value (or the default on creation). */
export async function setStaff(db: Sql, workspaceId: string, staffId: number, patch: StaffPatch): Promise<StaffMember> {
  checkId(workspaceId, staffId)
  if (patch.name !== undefined && (typeof patch.name !== 'string' || patch.name.length > 160)) throw new BadRequestError('name must be a string of at most 160 characters')
  for (const f of FLAGS) if (patch[f] !== undefined && typeof patch[f] !== 'boolean') throw new BadRequestError(`${f} must be true or false`)
  const ws = await db.query('SELECT 1 FROM workspaces WHERE id = $1', [workspaceId])
  if (ws.rows.length === 0) throw new BadRequestError(`no workspace ${workspaceId}`)
  const r = await db.query<Row>(
    `INSERT INTO staff_members (workspace_id, staff_id, name, active, can_manage_services, can_log_time, can_read_request_history, agent)
     VALUES ($1, $2, coalesce($3, ''), coalesce($4, true), coalesce($5, true), coalesce($6, true), coalesce($7, false), coalesce($8, false))
     ON CONFLICT (workspace_id, staff_id) DO UPDATE SET
       name = coalesce($3, staff_members.name),
       active = coalesce($4, staff_members.active),
       can_manage_services = coalesce($5, staff_members.can_manage_services),
       can_log_time = coalesce($6, staff_members.can_log_time),
       can_read_request_history = coalesce($7, staff_members.can_read_request_history),
       agent = coalesce($8, staff_members.agent),
       updated_at = now()
     RETURNING *`,
    [workspaceId, staffId, patch.name ?? null, patch.active ?? null, patch.can_manage_services ?? null,
      patch.can_log_time ?? null, patch.can_read_request_history ?? null, patch.agent ?? null])
  return toStaff(r.rows[0] as Row)
}

export async function listStaff(db: Sql, workspaceId?: string): Promise<StaffMember[]> {
  const r = workspaceId === undefined
    ? await db.query<Row>('SELECT * FROM staff_members ORDER BY workspace_id, staff_id')
    : await db.query<Row>('SELECT * FROM staff_members WHERE workspace_id = $1 ORDER BY staff_id', [workspaceId])
  return r.rows.map(toStaff)
}

export async function getStaff(db: Sql, workspaceId: string, staffId: number): Promise<StaffMember | null> {
  const r = await db.query<Row>('SELECT * FROM staff_members WHERE workspace_id = $1 AND staff_id = $2', [workspaceId, staffId])
  return r.rows[0] === undefined ? null : toStaff(r.rows[0])
}

/** The caller's staff record when it is active, else null (the owner socket counts as staff with every permission). */
export async function activeStaff(db: Sql, p: Principal, isOwner: boolean): Promise<StaffMember | 'owner' | null> {
  if (isOwner) return 'owner'
  if (p.staffId === null) return null
  const s = await getStaff(db, p.workspaceId, p.staffId)
  return s !== null && s.active ? s : null
}

/** Throws LOOKOUT_STAFF_REQUIRED unless the caller is an active staff member holding `permission`. */
export async function requireStaff(db: Sql, p: Principal, isOwner: boolean, permission: StaffPermission): Promise<StaffMember | 'owner'> {
  if (isOwner) return 'owner'
  const what = PERMISSION_WORDS[permission]
  if (p.staffId === null) throw new StaffRequiredError(`to ${what} the token must be bound to a staff member (lookout token create --staff ID)`)
  const s = await getStaff(db, p.workspaceId, p.staffId)
  if (s === null || !s.active) throw new StaffRequiredError(`staff member ${p.staffId} is not an active staff member of this workspace`)
  if (!s[permission]) throw new StaffRequiredError(`staff member ${p.staffId} may not ${what}`)
  return s
}
