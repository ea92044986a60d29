// What the rest of the api stage (app.ts, index.ts) uses of the project area.
import { itemPageQuery, listItems } from './store/lists.ts'
import { createTask, updateTask } from './store/tasks.ts'
import { ensureProject } from './store/defaults.ts'

export { PROJECT_MIGRATIONS } from './migrations.ts'
export { PROJECT_EVENT_TYPES, readProjectEvents } from './store/events.ts'
export type { ProjectEvent, ProjectEventType } from './store/events.ts'
export { WORK_STATES, ACTIONS, nextState } from './state-model.ts'
export type { WorkState, ActionName } from './state-model.ts'
export type { ProjectCtx, Actor } from './store/context.ts'
export type { ItemFilters } from './store/lists.ts'

/** The store functions behind the task routes, for in-process callers (the benchmark's baseline, tools). */
export const projectStore = { ensureProject, createTask, updateTask, listItems, itemPageQuery } as const
