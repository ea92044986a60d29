// The cloud routes an agent can call, with the scope each needs, for
// GET P/agent-context. `P` stands for /v1/workspaces/{workspace_id}.
import { SCOPES, type Scope } from '../../workspace/index.ts'

export interface CatalogueEntry {
  method: string
  path: string
  scope: Scope | null
  /** A second permission beyond the scope, in words. */
  also?: string
  purpose: string
}

const S = SCOPES

export const ROUTE_CATALOGUE: readonly CatalogueEntry[] = [
  { method: 'GET', path: '/v1/me', scope: null, purpose: 'who this credential is' },
  { method: 'GET', path: '/v1/workspaces', scope: null, purpose: 'workspaces this credential can reach' },
  { method: 'GET', path: 'P/agent-context', scope: null, purpose: 'this document' },
  { method: 'GET', path: 'P/project-endpoint', scope: S.projectRead, purpose: 'where the project API and tool endpoints are' },
  { method: 'GET', path: 'P/api-entitlements', scope: S.usageRead, purpose: 'effective API terms and limits' },
  { method: 'GET', path: 'P/api-usage', scope: S.usageRead, purpose: 'daily request totals per key' },
  { method: 'GET', path: 'P/api-usage/requests', scope: S.usageRead, also: 'staff member allowed to read the request history', purpose: 'request history (metadata only)' },
  { method: 'GET', path: 'P/resources', scope: null, purpose: 'list resources (cursor, limit, external_id)' },
  { method: 'POST', path: 'P/resources', scope: S.resourcesWrite, also: 'all-resource access', purpose: 'register a resource (stable external_id)' },
  { method: 'GET', path: 'P/resources/{resource_id}', scope: null, purpose: 'read a resource' },
  { method: 'PATCH', path: 'P/resources/{resource_id}', scope: S.resourcesWrite, purpose: 'edit a resource (status retired keeps it and its logs)' },
  { method: 'PUT', path: 'P/resources/{resource_id}/services/{service_id}', scope: S.resourcesWrite, also: 'services:read', purpose: 'associate a resource with a service' },
  { method: 'GET', path: 'P/resources/{resource_id}/ssh-key', scope: null, purpose: 'SSH key metadata (never key material)' },
  { method: 'PUT', path: 'P/resources/{resource_id}/ssh-key', scope: S.resourcesWrite, purpose: 'install or rotate a write-only SSH private key' },
  { method: 'DELETE', path: 'P/resources/{resource_id}/ssh-key', scope: S.resourcesWrite, purpose: 'remove the SSH key' },
  { method: 'GET', path: 'P/resources/{resource_id}/repository', scope: null, purpose: 'repository status, tree, file and search views' },
  { method: 'POST', path: 'P/resources/{resource_id}/repository/refresh', scope: null, purpose: 'fetch the repository again in the background' },
  { method: 'POST', path: 'P/resources/{resource_id}/logs', scope: S.logsWrite, purpose: 'send a JSON batch of log events' },
  { method: 'POST', path: 'P/resources/{resource_id}/otlp/v1/logs', scope: S.logsWrite, purpose: 'OTLP/HTTP log export (protobuf or JSON)' },
  { method: 'GET', path: 'P/resources/{resource_id}/logs', scope: S.logsRead, purpose: 'search a resource\'s logs' },
  { method: 'GET', path: 'P/services', scope: S.servicesRead, purpose: 'list services' },
  { method: 'POST', path: 'P/services', scope: S.servicesWrite, also: 'active staff member allowed to manage services', purpose: 'create a service' },
  { method: 'GET', path: 'P/services/{service_id}', scope: S.servicesRead, purpose: 'read a service' },
  { method: 'PATCH', path: 'P/services/{service_id}', scope: S.servicesWrite, also: 'active staff member allowed to manage services', purpose: 'edit a service (expected_updated_at)' },
  { method: 'GET', path: 'P/services/{service_id}/usage', scope: S.servicesUsageRead, purpose: 'time entries and totals' },
  { method: 'POST', path: 'P/services/{service_id}/time', scope: S.servicesUsageWrite, also: 'active staff member allowed to record time', purpose: 'record time' },
  { method: 'PATCH', path: 'P/services/{service_id}/time/{entry_id}', scope: S.servicesUsageWrite, also: 'active staff member allowed to record time', purpose: 'correct a time entry (revision, reason)' },
  { method: 'POST', path: 'P/services/{service_id}/time/{entry_id}/void', scope: S.servicesUsageWrite, also: 'active staff member allowed to record time', purpose: 'void a time entry (revision, reason)' },
]
