// Trace points of a cloud task or comment creation, for fault tests that SIGKILL the
// cloud on either side of its commit (test/desktop/portal/portal-kill.test.ts).
// LOOKOUT_TRACE_PROJECT=1: one stderr line at each point (synchronous on a
// pipe, so the line is out before the step goes on); LOOKOUT_TRACE_PROJECT_HOLD
// names the point (begin: before the transaction; committed: after the
// commit, before the answer; `comment.create:committed` for one operation only) where the request then waits, so the kill lands
// in that window instead of racing the answer. Off: one boolean check.
const TRACE = process.env.LOOKOUT_TRACE_PROJECT === '1'
const HOLD = process.env.LOOKOUT_TRACE_PROJECT_HOLD ?? ''
const HOLD_MS = 60_000

export type TracePoint = 'begin' | 'committed'

export async function tracePoint(step: TracePoint, key: string, op: 'task.create' | 'comment.create' = 'task.create'): Promise<void> {
  if (!TRACE) return
  process.stderr.write(`lookout-trace ${op} ${step} ${key}\n`)
  if (HOLD === step || HOLD === `${op}:${step}`) await new Promise((resolve) => setTimeout(resolve, HOLD_MS).unref())
}
