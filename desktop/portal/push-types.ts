// What a push round carries and what the portal answers with: shared by the
// one-by-one push (push.ts) and the batched creations (push-batch.ts).
import type { Database } from '../../core/index.ts'
import type { PortalTarget } from './client.ts'
import type { TaskLike } from './task-fields.ts'

export interface PushContext {
  db: Database
  ws: string
  portalWs: string
  target: PortalTarget
  taxonomy: boolean
  /** Portal ids of the items this round's push sent and merged from the answers (pull.ts). */
  touched?: Set<string>
  /** The portal creates tasks in batches (task-batch-v1, push-batch.ts). */
  batch?: boolean
}

/** A task (or note) as the portal returns it. */
export type PortalTask = TaskLike & { id: string; number: number | null; revision: number }
