// Who may reach each route of the desktop service with a grant (a bearer token
// on the loopback listener, or a stored grant acted with on the owner socket):
// 'owner-only' or the scopes a grant must hold (all of them, on top of the
// route's own checks). The owner on the socket is never limited by it.
//
// Each route declares its rule next to its handler (`config.access` in the
// api route files); the table is derived from the app's routes (accessTable),
// so there is no second list to keep. A route without a rule is refused to
// every grant, and test/desktop/route-access.test.ts, which walks the
// listener's routes, fails until it gets one: adding a route to the desktop
// service means deciding who can reach it. HEAD follows GET. desktop/README.md
// ("Route access") prints the table, and the test holds it to the code's.
import type { Scope } from '../workspace/index.ts'

export const OWNER_ONLY = 'owner-only'
export type Access = typeof OWNER_ONLY | readonly Scope[]
/** Any grant may call it (the route's own checks still apply). */
export const ANY_GRANT: readonly Scope[] = []

/** A route as the app registered it, with the rule it declared (undefined: none). */
export interface DeclaredRoute {
  method: string
  url: string
  access?: Access
}

/** The table's key of a route: HEAD is decided by its GET. */
export function routeKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`
}

/** The route-access table derived from the routes' declarations: key → rule (undecided routes are absent). */
export function accessTable(routes: readonly DeclaredRoute[]): ReadonlyMap<string, Access> {
  const table = new Map<string, Access>()
  for (const r of routes) if (r.access !== undefined && r.method !== 'HEAD') table.set(routeKey(r.method, r.url), r.access)
  return table
}

/** Routes (method, pattern) that declare no rule: the test of the table fails on any. */
export function undecidedRoutes(routes: readonly DeclaredRoute[]): string[] {
  const table = accessTable(routes)
  return [...new Set(routes.map((r) => routeKey(r.method, r.url)).filter((k) => !table.has(k)))].sort()
}

/** Why a grant with these scopes may not call the route (its key and rule), or null when it may. */
export function grantRefusal(key: string, access: Access | undefined, scopes: ReadonlySet<string>): string | null {
  if (access === undefined) return `${key} has no access decision for grants, so only the owner on the local socket may call it`
  if (access === OWNER_ONLY) return 'this operation is only available to the owner on the local socket'
  const missing = access.find((s) => !scopes.has(s))
  return missing === undefined ? null : `the grant lacks the ${missing} scope`
}
