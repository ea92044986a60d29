// Database CPU of one list page, per filter combination: the page SQL the API runs
// (projectStore.itemPageQuery), executed N times on one connection as a named
// prepared statement, with that backend's CPU read from /proc before and after.
// Also prints each combination's plan. See README.md ("Page cost").
import pg from 'pg'
import { executeText, openPostgres } from '../../core/internal.ts'
import { projectStore } from '../../workspace/internal.ts'
import { startTestPostgres } from '../../test/helpers/postgres.ts'
import { listCases, seed } from './seed.ts'
import { processCpuSeconds } from '../lib/procstat.ts'

const N = Number(process.env.BENCH_PAGES ?? 2000)

const server = await startTestPostgres()
try {
  const url = await server.database(`pagecost_${Date.now()}`)
  const db = await openPostgres(url, 2)
  const w = await seed(db)
  await db.close()
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number
  console.log('| filters | µs of backend CPU per page | rows | plan |')
  console.log('| --- | ---: | ---: | --- |')
  let total = 0
  for (const [k, c] of listCases(w).entries()) {
    const q = projectStore.itemPageQuery(w.workspaceId, ['task'], c.filters, true, 50, null)
    const name = `pc_${k}`
    const run = () => client.query({ name, text: q.text, values: q.values })
    for (let i = 0; i < 20; i++) await run()
    const c0 = processCpuSeconds(pid)
    let rows = 0
    for (let i = 0; i < N; i++) rows = (await run()).rowCount ?? 0
    const us = ((processCpuSeconds(pid) - c0) * 1e6) / N
    total += us
    // EXPLAIN EXECUTE shows the plan the named statement keeps: `$n` in it means the generic one.
    const exec = executeText(name, q.values)
    if (exec === undefined) throw new Error(`${c.query}: a value has no SQL literal`)
    const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${exec}`)
    const lines = plan.rows.map((r: Record<string, string>) => Object.values(r)[0]).filter((l) => !/Planning|Execution/.test(l as string))
    console.log(`| ${c.query} | ${us.toFixed(0)} | ${rows} | ${lines.map((l) => (l as string).trim()).join(' / ')} |`)
  }
  console.log(`mean over the ${listCases(w).length} combinations: ${(total / listCases(w).length).toFixed(0)} µs of PostgreSQL CPU per 50-task page`)
  await client.end()
} finally {
  await server.stop()
}
