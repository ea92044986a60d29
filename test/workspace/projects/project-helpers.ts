// Shortcuts for the project tests: paths, fresh keys, and records made through the API.
import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import { startTestLookout, type TestLookout } from '../../helpers/lookout.ts'
import { startTestPostgres } from '../../helpers/postgres.ts'

export const key = (): string => randomUUID()

/**
 * Waits until the server answers requests: right after start the event-loop
 * delay measured during start-up can still trip the overload guard (503).
 */
export async function settle(lk: TestLookout): Promise<void> {
  const deadline = Date.now() + 30_000
  while ((await lk.req('GET', '/v1/health')).status !== 200) {
    if (Date.now() > deadline) throw new Error('the server did not settle')
    await new Promise((r) => setTimeout(r, 200))
  }
}

export interface ProjectApi {
  P: string
  task(fields?: Record<string, unknown>, headers?: Record<string, string>): Promise<any>
  note(fields?: Record<string, unknown>): Promise<any>
  deliverable(fields?: Record<string, unknown>): Promise<any>
  board(name?: string): Promise<any>
  statuses(boardId?: string): Promise<any>
  taxonomy(): Promise<any>
  /** A type or label created through the taxonomy route; returns its id. */
  choice(kind: 'type' | 'label', name: string, icon?: string): Promise<string>
  act(id: string, action: string, revision: number, extra?: Record<string, unknown>, what?: string): Promise<{ status: number; body: any }>
}

export function projectApi(lk: TestLookout): ProjectApi {
  const P = `/v1/workspaces/${lk.workspaceId}`
  const create = async (path: string, body: Record<string, unknown>, headers?: Record<string, string>) => {
    const r = await lk.req('POST', `${P}/${path}`, { idempotency_key: key(), ...body }, headers)
    if (r.status !== 201) throw new Error(`POST ${path} → ${r.status} ${JSON.stringify(r.body)}`)
    return r.body
  }
  const api: ProjectApi = {
    P,
    task: (fields = {}, headers) => create('tasks', { title: 'a task', ...fields }, headers),
    note: (fields = {}) => create('notes', { body: 'a note', ...fields }),
    deliverable: (fields = {}) => create('deliverables', { title: 'a deliverable', ...fields }),
    async board(name = `board ${Math.random().toString(36).slice(2, 8)}`) {
      const r = await lk.req('POST', `${P}/project/boards`, { idempotency_key: key(), name })
      if (r.status !== 200) throw new Error(`board → ${r.status} ${JSON.stringify(r.body)}`)
      return r.body
    },
    async statuses(boardId) {
      return (await lk.req('GET', `${P}/project/statuses${boardId === undefined ? '' : `?board_id=${boardId}`}`)).body
    },
    async taxonomy() {
      return (await lk.req('GET', `${P}/project/taxonomy`)).body
    },
    async choice(kind, name, icon) {
      const rev = (await api.taxonomy()).revision
      const r = await lk.req('POST', `${P}/project/taxonomy`, { revision: rev, kind, operation: 'create', name, ...(icon === undefined ? {} : { icon }) })
      if (r.status !== 200) throw new Error(`taxonomy create → ${r.status} ${JSON.stringify(r.body)}`)
      const list = kind === 'type' ? r.body.types : r.body.labels
      return list.find((c: { name: string }) => c.name === name).id
    },
    act: (id, action, revision, extra = {}, what = 'tasks') => lk.req('POST', `${P}/${what}/${id}/actions`, { action, revision, ...extra }),
  }
  return api
}

/** A Lookout on a PostgreSQL server of its own, both stopped at the test's end; settled. */
export async function startOnPostgres(t: Test): Promise<{ lk: TestLookout; url: string }> {
  const server = await startTestPostgres()
  const lk = await startTestLookout({ env: { DATABASE_URL: server.url } }).catch(async (err) => {
    await server.stop()
    throw err
  })
  t.teardown(async () => {
    await lk.stop()
    await server.stop()
  })
  await settle(lk)
  return { lk, url: server.url }
}
