// The scopes the contract names, as one constant object and its union.
export const SCOPES = {
  projectRead: 'project:read',
  projectWrite: 'project:write',
  resourcesWrite: 'resources:write',
  servicesRead: 'services:read',
  servicesWrite: 'services:write',
  servicesUsageRead: 'services:usage:read',
  servicesUsageWrite: 'services:usage:write',
  usageRead: 'usage:read',
  logsRead: 'logs:read',
  logsWrite: 'logs:write',
  monitorRead: 'monitor:read',
  monitorHeartbeat: 'monitor:heartbeat',
  notificationsRead: 'notifications:read',
  notificationsWrite: 'notifications:write',
} as const
export type Scope = (typeof SCOPES)[keyof typeof SCOPES]
export const ALL_SCOPES: readonly Scope[] = Object.values(SCOPES)

export function isScope(s: string): s is Scope {
  return (ALL_SCOPES as readonly string[]).includes(s)
}
