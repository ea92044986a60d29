// Lists send each item's stored list document (workspace/projects/store/list-doc.ts), not
// the row the item's own route reads. After every kind of write (create, edit,
// each action, move, delete and restore, a status retired under the task, a batch creation, the
// desktop's edits, a ticket, notes and deliverables) the item's entry in its list
// must be byte for byte the body its own GET route sends: a write that left the
// list document stale, or a document built differently from the view, fails here.
// On PGlite and on a PostgreSQL server (named prepared statements).
import t, { type Test } from 'tap'
import { startTestLookout, type TestLookout } from '../../helpers/lookout.ts'
import { postgresAvailable } from '../../helpers/postgres.ts'
import { key, projectApi, settle, startOnPostgres } from './project-helpers.ts'

// Every character class JSON escapes differently: quotes, backslash, the short escapes,
// other control characters, non-ASCII, astral, the line separators JSON.stringify keeps.
const TRICKY = 'q"uote \\ back/slash \t\n\r\b\f \u0001\u001f\u007f é 漢 😀 \u2028\u2029 </script>'

async function text(lk: TestLookout, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(lk.url + path, { headers: { authorization: `Bearer ${lk.token}` } })
  return { status: res.status, body: await res.text() }
}

async function suite(t: Test, lk: TestLookout): Promise<void> {
  const api = projectApi(lk)
  const { P } = api

  /** The item's GET body appears verbatim in the list page, and the page is valid JSON with it once. */
  const listed = async (t: Test, what: string, id: string, itemPath: string, listPath: string) => {
    const item = await text(lk, itemPath)
    t.equal(item.status, 200, `${what}: GET ${itemPath}`)
    // A deliverable's own GET adds its progress and a page of its tasks after the deliverable's fields.
    const extra = item.body.indexOf(',"progress":')
    if (extra !== -1) item.body = `${item.body.slice(0, extra)}}`
    const page = await text(lk, listPath)
    t.equal(page.status, 200, `${what}: GET ${listPath}`)
    const parsed = JSON.parse(page.body) as { items: { id: string }[] }
    t.equal(parsed.items.filter((i) => i.id === id).length, 1, `${what}: listed once`)
    t.ok(page.body.includes(item.body), `${what}: the list entry is byte for byte the item's body`)
    if (!page.body.includes(item.body)) {
      t.same(parsed.items.find((i) => i.id === id), JSON.parse(item.body), `${what}: list entry vs item`)
    }
  }

  // pinned-date: calendar dates the code never compares with the clock
  t.test('tasks: create, edit, every action, move, delete, restore, status retired', async (t) => {
    const board = await api.board('docs')
    const other = await api.board('docs other')
    const statuses = (await api.statuses(board.id)).items as { id: string; name: string }[]
    const otherStatuses = (await api.statuses(other.id)).items as { id: string }[]
    const bug = await api.choice('type', `doc type ${key().slice(0, 6)}`, 'bug')
    const red = await api.choice('label', `doc red ${key().slice(0, 6)}`)
    const blue = await api.choice('label', `doc blue ${key().slice(0, 6)}`)
    const q = `&q=${encodeURIComponent('doc-task-marker')}`
    const task = await api.task({
      title: `doc-task-marker ${TRICKY}`, description: `${TRICKY} ${'long '.repeat(1000)}`, acceptance: TRICKY, board_id: board.id,
      type_id: bug, label_ids: [red, blue], assignee: 3, reviewer: 4, priority: 'high', starts_on: '2026-02-01', due_on: '2026-03-01',
      status_id: statuses[0]?.id,
    })
    const self = `${P}/tasks/${task.id}`
    await listed(t, 'created', task.id, self, `${P}/tasks?board_id=${board.id}${q}`)
    await listed(t, 'created, filtered', task.id, self, `${P}/tasks?label_ids=${red}&type_ids=${bug}&assignee_id=3&priority=high&due_before=2026-04-01`)

    let rev = 1
    const patch = async (body: Record<string, unknown>) => {
      const r = await lk.req('PATCH', self, { revision: rev, ...body })
      t.equal(r.status, 200, `PATCH ${JSON.stringify(body).slice(0, 80)}`)
      rev = r.body.revision
    }
    await patch({ title: `doc-task-marker edited ${TRICKY}`, label_ids: [blue], priority: 'urgent', due_on: null, type_id: null, description: null })
    await listed(t, 'edited', task.id, self, `${P}/tasks?label_ids=${blue}&priority=urgent${q}`)
    await patch({ assignee: null, reviewer: 9, starts_on: null })
    await listed(t, 'unassigned', task.id, self, `${P}/tasks?unassigned=true${q}`)

    const act = async (action: string, extra: Record<string, unknown> = {}) => {
      const r = await api.act(task.id, action, rev, extra)
      t.equal(r.status, 200, `action ${action}: ${JSON.stringify(r.body).slice(0, 200)}`)
      rev = r.body.revision
      return r.body
    }
    await act('claim', { assignee: 5 })
    await listed(t, 'claimed', task.id, self, `${P}/tasks?assignee_id=5${q}`)
    await act('work')
    await listed(t, 'working', task.id, self, `${P}/tasks?state=in_progress${q}`)
    await act('state', { state: 'blocked', blocked_reason: `waiting ${TRICKY}` })
    await listed(t, 'blocked', task.id, self, `${P}/tasks?state=blocked${q}`)
    await act('update', { body: 'a progress note', priority: 'low' })
    await listed(t, 'updated by action', task.id, self, `${P}/tasks?priority=low${q}`)
    await act('archive')
    await listed(t, 'archived', task.id, `${self}?archived=true`, `${P}/tasks?archived=true${q}`)
    t.notOk((await text(lk, `${P}/tasks?${q.slice(1)}`)).body.includes(task.id), 'archived: gone from the live list')
    await act('restore')
    await listed(t, 'restored from the archive', task.id, self, `${P}/tasks?${q.slice(1)}`)

    const moved = await lk.req('POST', `${self}/move`, { revision: rev, target_board_id: other.id, target_status_id: otherStatuses[1]?.id })
    t.equal(moved.status, 200, 'moved')
    rev = moved.body.revision
    await listed(t, 'moved', task.id, self, `${P}/tasks?board_id=${other.id}&status_id=${otherStatuses[1]?.id}`)

    const del = await lk.req('DELETE', self, { revision: rev })
    t.equal(del.status, 200, 'deleted')
    rev = del.body.revision
    await listed(t, 'deleted', task.id, `${self}?deleted=true`, `${P}/tasks?deleted=true${q}`)
    await act('restore')
    await listed(t, 'restored from the trash', task.id, self, `${P}/tasks?board_id=${other.id}`)

    // The retired status's tasks move to the replacement in one statement outside the item store.
    const cat = await api.statuses(other.id)
    const retire = await lk.req('POST', `${P}/project/statuses`, {
      board_id: other.id, revision: cat.revision, action: 'retire', status_id: otherStatuses[1]?.id, replacement_id: otherStatuses[0]?.id,
    })
    t.equal(retire.status, 200, `retired: ${JSON.stringify(retire.body).slice(0, 200)}`)
    const after = (await lk.req('GET', self)).body
    t.equal(after.status_id, otherStatuses[0]?.id, 'the task follows the replacement')
    await listed(t, 'status retired', task.id, self, `${P}/tasks?status_id=${otherStatuses[0]?.id}${q}`)
  })

  t.test('tickets, notes, deliverables and the desktop list', async (t) => {
    const ticket = await lk.req('POST', `${P}/tickets`, { idempotency_key: key(), subject: `ticket ${TRICKY}`, body: 'it broke' })
    t.equal(ticket.status, 201)
    await listed(t, 'ticket', ticket.body.id, `${P}/tasks/${ticket.body.id}`, `${P}/tickets?q=ticket`)

    const note = await api.note({ title: `note ${TRICKY}`, body: TRICKY, color: 'yellow', visibility: 'internal' })
    await listed(t, 'note', note.id, `${P}/notes/${note.id}`, `${P}/notes?q=note`)
    const noteEdit = await lk.req('PATCH', `${P}/notes/${note.id}`, { revision: 1, body: 'plain', color: null })
    t.equal(noteEdit.status, 200)
    await listed(t, 'note edited', note.id, `${P}/notes/${note.id}`, `${P}/notes?q=note`)

    // pinned-date: calendar dates the code never compares with the clock
    const d = await api.deliverable({ title: `deliverable ${TRICKY}`, owner: 7, due_on: '2026-05-05' })
    await listed(t, 'deliverable', d.id, `${P}/deliverables/${d.id}`, `${P}/deliverables?q=deliverable`)
    const dEdit = await lk.req('PATCH', `${P}/deliverables/${d.id}`, { revision: 1, owner: null, starts_on: '2026-04-01' })
    t.equal(dEdit.status, 200)
    await listed(t, 'deliverable edited', d.id, `${P}/deliverables/${d.id}`, `${P}/deliverables?q=deliverable`)

    const desk = await lk.req('POST', '/v1/projects/items', { idempotency_key: key(), title: `desk ${TRICKY}`, assignee: 2 })
    t.equal(desk.status, 201)
    await listed(t, 'desktop task', desk.body.id, `/v1/projects/items/${desk.body.id}`, '/v1/projects/items?q=desk')
    const deskEdit = await lk.req('PATCH', `/v1/projects/items/${desk.body.id}`, { idempotency_key: key(), revision: 1, title: 'desk edited', assignee: null })
    t.equal(deskEdit.status, 200)
    await listed(t, 'desktop task edited', desk.body.id, `/v1/projects/items/${desk.body.id}`, '/v1/projects/items?q=desk')
    const trash = await lk.req('DELETE', `/v1/projects/items/${desk.body.id}`, { idempotency_key: key(), revision: 2 })
    t.equal(trash.status, 200)
    await listed(t, 'desktop task trashed', desk.body.id, `/v1/projects/items/${desk.body.id}`, '/v1/projects/items?q=desk&deleted=true')
  })

  // The batch writes each row's list document itself (no trigger): the same text, from ids spelled in capitals too.
  t.test('tasks made by the batch route', async (t) => {
    const dayFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
    const board = await api.board('docs batch')
    const status = ((await api.statuses(board.id)).items as { id: string }[])[1]?.id as string
    const label = await api.choice('label', `doc batch ${key().slice(0, 6)}`)
    const deliverable = await api.deliverable({ title: `batch deliverable ${TRICKY}` })
    const r = await lk.req('POST', `${P}/tasks/batch`, { items: [
      { idempotency_key: key(), title: `doc-batch-marker ${TRICKY}`, description: TRICKY, acceptance: TRICKY, board_id: board.id.toUpperCase(),
        status_id: status.toUpperCase(), label_ids: [label.toUpperCase()], deliverable: deliverable.id.toUpperCase(), assignee: 3, reviewer: 4,
        priority: 'high', starts_on: dayFromNow(2), due_on: dayFromNow(30) },
      { idempotency_key: key(), title: 'doc-batch-marker defaults' },
    ] })
    t.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300))
    const [full, plain] = (r.body.items as { status: number; task: { id: string } }[]).map((x) => x.task.id)
    // The batch answers from the rows it built, not read back: the answer is the task's own GET body too.
    for (const x of r.body.items as { task: { id: string } }[]) t.equal(JSON.stringify(x.task), (await text(lk, `${P}/tasks/${x.task.id}`)).body, 'batch answer is the GET body')
    await listed(t, 'batch, every field', full as string, `${P}/tasks/${full}`, `${P}/tasks?board_id=${board.id}&label_ids=${label}&q=doc-batch-marker`)
    await listed(t, 'batch, defaults', plain as string, `${P}/tasks/${plain}`, `${P}/tasks?q=${encodeURIComponent('doc-batch-marker defaults')}`)
  })

  t.test('every stored list document is the one its row makes now', async (t) => {
    const r = await lk.lookout.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM project_items WHERE list_doc IS DISTINCT FROM project_item_doc(project_items)')
    t.equal(r.rows[0]?.n, 0)
  })
}

t.test('PGlite', async (t) => {
  const lk = await startTestLookout()
  t.teardown(() => lk.stop())
  await settle(lk)
  await suite(t, lk)
})

t.test('PostgreSQL server', { skip: postgresAvailable() ? false : 'PostgreSQL binaries not installed' }, async (t) => {
  const { lk } = await startOnPostgres(t)
  t.equal(lk.lookout.db.embedded, false, 'running on the server')
  await suite(t, lk)
})
