// The state of a check (with since when) and the result of a sent alert, drawn
// the same way on the overview, monitoring and incident pages.
import { STATE_LABEL, type CheckState } from './check-state.ts'
import { deliveryResult, type Delivery } from '../on-call.ts'
import { fmtSince } from '../time.ts'

export function StatePill({ state, since, now }: { state: CheckState; since?: string | null | undefined; now?: number }) {
  return <>
    <span class={`pill state-${state}`} data-state={state}>{STATE_LABEL[state]}</span>
    {since != null && <span class="small muted since">{fmtSince(since, undefined, now)}</span>}
  </>
}

export function DeliveryPill({ d }: { d: Delivery }) {
  return <span class={`pill ${d.state === 'delivered' ? 'ok' : d.state === 'failed' ? 'bad' : 'warn'}`} data-result={d.state}>{deliveryResult(d)}</span>
}
