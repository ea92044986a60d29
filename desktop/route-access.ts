// Who may reach each route of the desktop service with a grant (a bearer token
// on the loopback listener, or a stored grant acted with on the owner socket):
// ONE table, method + route pattern → 'owner-only' or the scopes a grant must
// hold (all of them, on top of the route's own checks). The owner on the socket
// is never limited by it. A route with no row is refused to every grant, and
// test/desktop/route-access.test.ts fails until it gets one: adding a route to
// the desktop service means deciding here who can reach it. HEAD follows GET.
// The same table is in desktop/README.md ("Route access").
import { SCOPES, type Scope } from '../workspace/index.ts'

export const OWNER_ONLY = 'owner-only'
export type Access = typeof OWNER_ONLY | readonly Scope[]

const ANY: readonly Scope[] = []
const PR = [SCOPES.projectRead] as const
const PW = [SCOPES.projectWrite] as const
const LR = [SCOPES.logsRead] as const
const LW = [SCOPES.logsWrite] as const
const MR = [SCOPES.monitorRead] as const
const W = '/v1/workspaces/:workspace_id'
const R = `${W}/resources/:resource_id`

export const ROUTE_ACCESS: Readonly<Record<string, Access>> = {
  // Operations: documentation, liveness, identity. A token is still required (loopback edge).
  'GET /v1/health': ANY,
  'GET /v1/ready': ANY,
  'GET /v1/openapi.json': ANY,
  'GET /v1/docs': ANY,
  'GET /v1/docs/static/*': ANY,
  'GET /v1/docs/json': ANY,
  'GET /v1/docs/yaml': ANY,
  'GET /v1/docs/static/index.html': ANY,
  'GET /v1/docs/static/swagger-initializer.js': ANY,
  'GET /v1/me': ANY,
  'GET /v1/workspaces': ANY,
  [`GET ${W}/agent-context`]: ANY,
  [`GET ${W}/api-usage`]: [SCOPES.usageRead],
  [`GET ${W}/api-usage/requests`]: [SCOPES.usageRead],
  [`GET ${W}/api-entitlements`]: [SCOPES.usageRead],

  // Desktop service settings, status, forwarding (settings), grants: owner-only socket operations.
  'GET /v1/settings': OWNER_ONLY,
  'PATCH /v1/settings': OWNER_ONLY,
  'GET /v1/desktop': OWNER_ONLY,
  'GET /v1/grants': OWNER_ONLY,
  'POST /v1/grants': OWNER_ONLY,
  'GET /v1/grants/:id': OWNER_ONLY,
  'DELETE /v1/grants/:id': OWNER_ONLY,
  // Staff and agent (droid) profiles: `lookout staff set --desktop`.
  'GET /v1/profiles': OWNER_ONLY,
  'PUT /v1/profiles/:staff_id': OWNER_ONLY,

  // Portal views (owner operations; they use the owner's portal connection).
  'GET /v1/portal/logs': OWNER_ONLY,
  'GET /v1/portal/monitoring': OWNER_ONLY,
  // The portal connection and its sync (api/portal, deploy/PORTAL.md).
  'POST /v1/portal/connection': OWNER_ONLY,
  'GET /v1/portal/connection': OWNER_ONLY,
  'DELETE /v1/portal/connection': OWNER_ONLY,
  'POST /v1/portal/sync': OWNER_ONLY,
  'GET /v1/portal/conflicts': OWNER_ONLY,
  'POST /v1/portal/conflicts/:seq': OWNER_ONLY,
  'GET /v1/portal/reviews': OWNER_ONLY,
  'POST /v1/portal/reviews/:id': OWNER_ONLY,

  // Local project routes.
  'GET /v1/projects/items': PR,
  'POST /v1/projects/items': PW,
  'GET /v1/projects/items/:id': PR,
  'PATCH /v1/projects/items/:id': PW,
  'DELETE /v1/projects/items/:id': PW,
  'POST /v1/projects/items/:id/actions': PW,
  'GET /v1/projects/items/:id/history': PR,
  'GET /v1/projects/items/:id/assignment': PR,
  'GET /v1/projects/boards': PR,
  'GET /v1/projects/members': PR,
  'GET /v1/projects/statuses': PR,
  'POST /v1/projects/statuses': PW,
  'GET /v1/projects/edges': PR,
  'POST /v1/projects/edges': PW,
  'DELETE /v1/projects/edges/:id': PW,
  'GET /v1/projects/taxonomy': PR,
  'POST /v1/projects/taxonomy': PW,

  // Cloud-shaped project routes (the portal's schemas, also served locally).
  [`GET ${W}/project`]: PR,
  [`GET ${W}/project-endpoint`]: PR,
  [`GET ${W}/project/boards`]: PR,
  [`POST ${W}/project/boards`]: PW,
  [`POST ${W}/project/boards/:item_id`]: PW,
  [`GET ${W}/project/statuses`]: PR,
  [`POST ${W}/project/statuses`]: PW,
  [`GET ${W}/project/taxonomy`]: PR,
  [`POST ${W}/project/taxonomy`]: PW,
  [`GET ${W}/project/timeline`]: PR,
  [`GET ${W}/project/activity`]: PR,
  [`GET ${W}/project/assignees`]: PR,
  [`GET ${W}/tasks`]: PR,
  [`POST ${W}/tasks`]: PW,
  [`POST ${W}/tasks/batch`]: PW,
  [`GET ${W}/tasks/:item_id`]: PR,
  [`PATCH ${W}/tasks/:item_id`]: PW,
  [`DELETE ${W}/tasks/:item_id`]: PW,
  [`POST ${W}/tasks/:item_id/actions`]: PW,
  [`POST ${W}/tasks/:item_id/move`]: PW,
  [`GET ${W}/tasks/:item_id/comments`]: PR,
  [`POST ${W}/tasks/:item_id/comments`]: PW,
  [`PATCH ${W}/tasks/:item_id/comments/:comment_id`]: PW,
  [`DELETE ${W}/tasks/:item_id/comments/:comment_id`]: PW,
  [`GET ${W}/tickets`]: PR,
  [`POST ${W}/tickets`]: PW,
  [`GET ${W}/tickets/:item_id`]: PR,
  [`POST ${W}/tickets/:item_id/replies`]: PW,
  [`GET ${W}/notes`]: PR,
  [`POST ${W}/notes`]: PW,
  [`GET ${W}/notes/:item_id`]: PR,
  [`PATCH ${W}/notes/:item_id`]: PW,
  [`POST ${W}/notes/:item_id/actions`]: PW,
  [`GET ${W}/deliverables`]: PR,
  [`POST ${W}/deliverables`]: PW,
  [`GET ${W}/deliverables/:item_id`]: PR,
  [`PATCH ${W}/deliverables/:item_id`]: PW,
  [`POST ${W}/deliverables/:item_id/actions`]: PW,

  // Services and time entries (cloud-shaped; staff checks of the routes still apply).
  [`GET ${W}/services`]: [SCOPES.servicesRead],
  [`POST ${W}/services`]: [SCOPES.servicesWrite],
  [`GET ${W}/services/:service_id`]: [SCOPES.servicesRead],
  [`PATCH ${W}/services/:service_id`]: [SCOPES.servicesWrite],
  [`GET ${W}/services/:service_id/usage`]: [SCOPES.servicesUsageRead],
  [`POST ${W}/services/:service_id/time`]: [SCOPES.servicesUsageWrite],
  [`PATCH ${W}/services/:service_id/time/:entry_id`]: [SCOPES.servicesUsageWrite],
  [`POST ${W}/services/:service_id/time/:entry_id/void`]: [SCOPES.servicesUsageWrite],

  // Resources: registering one is not a credential; what hangs off it mostly is.
  [`GET ${W}/resources`]: ANY,
  [`POST ${W}/resources`]: [SCOPES.resourcesWrite],
  [`GET ${R}`]: ANY,
  [`PATCH ${R}`]: [SCOPES.resourcesWrite],
  [`PUT ${R}/services/:service_id`]: [SCOPES.resourcesWrite],
  // SSH aliases and keys are credentials: owner-only, metadata included.
  [`GET ${R}/ssh-key`]: OWNER_ONLY,
  [`PUT ${R}/ssh-key`]: OWNER_ONLY,
  [`DELETE ${R}/ssh-key`]: OWNER_ONLY,
  // Repository views read source code: project readers; a refresh fetches (a change of state).
  [`GET ${R}/repository`]: PR,
  [`POST ${R}/repository/refresh`]: PW,
  // Monitoring configuration and alert routing (cloud-shaped): reading is monitor:read, changing is owner-only.
  [`GET ${R}/monitoring`]: MR,
  [`POST ${R}/monitoring`]: OWNER_ONLY,
  [`POST ${R}/monitoring/subscription`]: OWNER_ONLY,
  [`POST ${R}/monitoring/sources`]: OWNER_ONLY,
  [`GET ${R}/monitoring/results`]: MR,
  [`GET ${R}/monitoring/incidents/:incident_id`]: MR,
  // On-call views (cloud-shaped): reading is monitor:read; marking the inbox is the owner's, as the local inbox's actions are.
  [`GET ${W}/monitoring/overview`]: MR,
  [`GET ${W}/notifications`]: MR,
  [`POST ${W}/notifications/actions`]: OWNER_ONLY,
  // An alert message's acknowledge link: its signed, single-use token is the credential (a public route
  // on the cloud); on the loopback listener any grant may present it.
  'GET /v1/acknowledge/:token': ANY,
  'POST /v1/acknowledge/:token': ANY,
  [`POST ${R}/monitoring/actions`]: OWNER_ONLY,
  [`GET ${R}/alerts`]: MR,
  [`POST ${R}/alerts`]: OWNER_ONLY,
  // Resource logs (cloud-shaped) and OTLP.
  [`POST ${R}/logs`]: LW,
  [`GET ${R}/logs`]: LR,
  [`GET ${R}/logs/tail`]: LR,
  [`GET ${R}/logs/histogram`]: LR,
  [`GET ${R}/logs/facets`]: LR,
  [`GET ${R}/logs/:event_id/context`]: LR,
  // One search across resources, its facets, and the saved searches (shared with every log reader, as on the cloud).
  [`GET ${W}/logs`]: LR,
  [`GET ${W}/logs/facets`]: LR,
  [`GET ${W}/saved-searches`]: LR,
  [`POST ${W}/saved-searches`]: LR,
  [`GET ${W}/saved-searches/:id`]: LR,
  [`PATCH ${W}/saved-searches/:id`]: LR,
  [`DELETE ${W}/saved-searches/:id`]: LR,
  [`POST ${R}/otlp/v1/logs`]: LW,

  // Local log routes.
  'POST /v1/logs': LW,
  'GET /v1/logs': LR,
  'GET /v1/logs/tail': LR,
  'GET /v1/logs/setup': OWNER_ONLY,
  'POST /v1/logs/senders': OWNER_ONLY,
  'DELETE /v1/logs/senders/:id': OWNER_ONLY,

  // Local monitoring and heartbeat.
  'GET /v1/monitoring': MR,
  'POST /v1/monitoring/checks': OWNER_ONLY,
  'POST /v1/monitoring/actions': OWNER_ONLY,
  'POST /v1/heartbeat': [SCOPES.monitorHeartbeat],

  // Notifications: grants read; the owner acts, refreshes and sets toasts.
  'GET /v1/notifications': [SCOPES.notificationsRead],
  'POST /v1/notifications/actions': OWNER_ONLY,
  'POST /v1/notifications/refresh': OWNER_ONLY,
  'GET /v1/notifications/settings': OWNER_ONLY,
  'PUT /v1/notifications/settings': OWNER_ONLY,

  // Webhook management: owner-only.
  'GET /v1/webhooks': OWNER_ONLY,
  'POST /v1/webhooks': OWNER_ONLY,
  'PATCH /v1/webhooks/:id': OWNER_ONLY,
  'DELETE /v1/webhooks/:id': OWNER_ONLY,
  'GET /v1/webhooks/:id/deliveries': OWNER_ONLY,
  'POST /v1/webhooks/:id/test': OWNER_ONLY,
  'POST /v1/webhooks/:id/deliveries/:delivery_id/retry': OWNER_ONLY,
  'POST /v1/webhooks/restore': OWNER_ONLY,

  // The console's pipeline figures are process-wide: the owner's.
  'GET /v1/pipeline': OWNER_ONLY,

  // Remote collectors report to a cloud; a desktop service runs its checks itself.
  'GET /v1/collector/checks': OWNER_ONLY,
  'POST /v1/collector/observations': OWNER_ONLY,
}

/** The table's key of a route: HEAD is decided by its GET. */
export function routeKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`
}

/** The decision for a route, undefined when the table has none (refused to every grant). */
export function accessOf(method: string, url: string): Access | undefined {
  return ROUTE_ACCESS[routeKey(method, url)]
}

/** Routes (method, pattern) the table has no decision for: the test of the table fails on any. */
export function undecidedRoutes(routes: readonly { method: string; url: string }[]): string[] {
  return [...new Set(routes.filter((r) => accessOf(r.method, r.url) === undefined).map((r) => routeKey(r.method, r.url)))].sort()
}

/** Why a grant with these scopes may not call the route, or null when it may. */
export function grantRefusal(method: string, url: string, scopes: ReadonlySet<string>): string | null {
  const access = accessOf(method, url)
  if (access === undefined) return `${routeKey(method, url)} has no access decision for grants, so only the owner on the local socket may call it`
  if (access === OWNER_ONLY) return 'this operation is only available to the owner on the local socket'
  const missing = access.find((s) => !scopes.has(s))
  return missing === undefined ? null : `the grant lacks the ${missing} scope`
}
