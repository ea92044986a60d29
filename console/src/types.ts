export interface Me {
  owner: boolean
  credential: { id: string | null; name: string; kind: string; scopes: string[]; resources: 'all' | string[]; staff_id: number | null }
  workspace: { id: string; name: string; created_at: string }
}

export interface Resource {
  id: string
  external_id: string
  name: string
  kind: string
  status: string
  environment: string
  created_at?: string
}

export interface Session {
  me: Me
  workspaces: { id: string; name: string }[]
  resources: Resource[]
}

// Written from the row model (query/event-type.ts), not restated here.
export type { LogEvent } from './log-event.ts'

export const LEVELS = ['UNSET', 'TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const
export const LEVEL_COLORS: Record<string, string> = {
  UNSET: '#8b949e', TRACE: '#6e7681', DEBUG: '#58a6ff', INFO: '#3fb950', WARN: '#d29922', ERROR: '#f85149', FATAL: '#db61a2',
}
