// Public surface of the workspace stage: what other stages use.
export { contentHash, idempotent as serviceIdempotent } from './services/idempotency.ts'
export { idempotent as projectIdempotent } from './projects/store/idempotency.ts'
export {
  instanceId, deliverableWithTasks, members, assignmentView, getItem, overview, timeline,
} from './projects/store/views.ts'
export {
  isUuid, createToken, listTokens, revokeToken, principalById, canReach, listWorkspaces, createWorkspace,
} from './identity/tokens.ts'
export type { Principal, TokenKind, TokenInfo } from './identity/tokens.ts'
export { ALL_SCOPES, SCOPES } from './identity/scopes.ts'
export type { Scope } from './identity/scopes.ts'
export { TokenVerifier } from './identity/verifier.ts'
export type { TokenVerifierOptions } from './identity/verifier.ts'
export {
  AuthInvalidError, AuthMissingError, ItemDeletedError, NotApplicableError, RepositoryUnavailableError,
} from './errors.ts'
export { forgetDefaultBoard, ensureProject, markPortalShared } from './projects/store/defaults.ts'
export { recordActivity } from './projects/store/activity.ts'
export { correctEntry, createEntry, listEntries, usageTotals, voidEntry, withoutInternalNotes } from './services/time.ts'
export type { Actor as TimeActor, TimeCorrectInput, TimeCreateInput, TimeEntry } from './services/time.ts'
export {
  ITEM_COLS, applyChanges, checkEditable, checkRevision, getItemRow, lockItem, toView, toTask,
} from './projects/store/items.ts'
export type { ItemRow } from './projects/store/items.ts'
export {
  ACTION, COMMENT_CREATE, FILTER_QUERY, REVISION_INPUT, TASK_CREATE, TASK_MOVE, TASK_UPDATE, TAXONOMY_CONFIGURE, BOARD_ACTION, BOARD_CREATE, BOARD_CONFIGURE, COMMENT_UPDATE, DELIVERABLE_CREATE, DELIVERABLE_UPDATE, NOTE_CREATE, NOTE_UPDATE, REPLY, TICKET_CREATE,
} from './projects/schemas/cloud.ts'
export {
  ACTIVITY_PAGE, ASSIGNEE_PAGE, BOARD_PAGE, COMMENT_PAGE, COMMENT_VIEW, STATUS_CATALOGUE, TASK_PAGE, TASK_VIEW, TAXONOMY_CATALOGUE,
} from './projects/schemas/responses.ts'
export {
  RESOURCE_LIST_QUERY, RESOURCE_PARAMS, WORKSPACE_PARAMS, RESOURCE_CREATE, RESOURCE_SERVICE_PARAMS, RESOURCE_UPDATE,
} from './resources/schemas.ts'
export { PROJECT_MIGRATIONS, readProjectEvents, WORK_STATES, ACTIONS, nextState, projectStore } from './projects/index.ts'
export type { WorkState, ActionName } from './projects/index.ts'
export { SshKeyRuntime } from './ssh/runtime.ts'
export { RequestRecorder } from './usage/recorder.ts'
export type { RecorderOptions } from './usage/recorder.ts'
export { activeStaff, getStaff, setStaff, listStaff, STAFF_PERMISSIONS, requireStaff } from './services/staff.ts'
export type { StaffPatch } from './services/staff.ts'
export {
  registerResource, getResource, resourceExists, associateService, listResources, updateResource,
} from './resources/store.ts'
export type { ResourceInput, ResourcePatch } from './resources/store.ts'
export { ownerResolver } from './identity/owner.ts'
export { seesInternal, actorOf } from './projects/store/context.ts'
export type { ProjectCtx, Actor } from './projects/store/context.ts'
export { listComments, listItems, listItemDocs, listActivity } from './projects/store/lists.ts'
export type { ItemFilters, Page } from './projects/store/lists.ts'
export { openSshKey, deleteSshKey, getSshKey, putSshKey, sshKeysSealed } from './ssh/store.ts'
export type { SshKeyInput } from './ssh/store.ts'
export { IDENTITY_MIGRATIONS } from './identity/migrations.ts'
export { SERVICES_MIGRATIONS } from './services/migrations.ts'
export { SSH_MIGRATIONS } from './ssh/migrations.ts'
export { USAGE_MIGRATIONS } from './usage/migrations.ts'
export { ITEM_PARAMS, COMMENT_PARAMS, ID_PARAMS } from './projects/schemas/fields.ts'
export { boardAction, createBoard, listBoards } from './projects/store/boards.ts'
export type { BoardActionInput } from './projects/store/boards.ts'
export { configureStatuses, statusCatalogue, configureStatusesIn } from './projects/store/statuses.ts'
export type { BoardConfigureInput } from './projects/store/statuses.ts'
export { configureTaxonomy, taxonomyCatalogue, configureTaxonomyIn } from './projects/store/taxonomy.ts'
export type { TaxonomyInput } from './projects/store/taxonomy.ts'
export { commentedTask, createComment, deleteComment, updateComment } from './projects/store/comments.ts'
export type { CommentCreateInput } from './projects/store/comments.ts'
export { applyAction, applyActionAny } from './projects/store/actions.ts'
export type { ActionInput } from './projects/store/actions.ts'
export { createDeliverable, updateDeliverable } from './projects/store/deliverables.ts'
export type { DeliverableCreateInput, DeliverableUpdateInput } from './projects/store/deliverables.ts'
export {
  BOARDS_QUERY, EDGE_CREATE, EDGES_QUERY, REVISION_MUTATION, STATUSES_QUERY, STATUS_CONFIGURE, TAXONOMY_QUERY, TAXONOMY_WRITE, HISTORY_QUERY, ITEM_ACTION, ITEM_CREATE, ITEM_LIST_QUERY, ITEM_PATCH_ENVELOPE, NOTE_PATCH, TASK_PATCH, WS_QUERY,
} from './projects/schemas/desktop.ts'
export { insertEdge, listEdges, tombstoneEdge } from './projects/store/edges.ts'
export type { EdgeInput } from './projects/store/edges.ts'
export { adoptRecordId, insertPortalRecord, recordRevisions, recordsByIds, writeRecord } from './projects/store/sync-records.ts'
export type { SyncRecord, SyncRecordKind } from './projects/store/sync-records.ts'
export { insertNote, noteChanges, createNote, updateNote } from './projects/store/notes.ts'
export type { NoteCreateInput, NoteUpdateInput } from './projects/store/notes.ts'
export { insertTask, taskChanges, createTask, deleteItem, moveTask, updateTask } from './projects/store/tasks.ts'
export type { TaskCreateInput, TaskMoveInput, TaskUpdateInput } from './projects/store/tasks.ts'
export { createTicket, getTicket, replyToTicket } from './projects/store/tickets.ts'
export type { ReplyInput, TicketCreateInput } from './projects/store/tickets.ts'
export { GitError, GitMissing } from './repository/git.ts'
export { acquireMirrors, releaseMirrors } from './repository/mirrors.ts'
export { repoPath } from './repository/paths.ts'
export { configuredValue, resolveSource, SOURCE_KEYS } from './repository/source.ts'
export type { ResolvedSource, SourceName } from './repository/source.ts'
export { fileView, searchView, statusView, treeView } from './repository/views.ts'
export { semanticView } from './repository/semantic/view.ts'
export { checkSshRemote, sshCommandFor } from './repository/ssh-remote.ts'
export {
  ENTRY_PARAMS, SERVICE_CREATE, SERVICE_LIST_QUERY, SERVICE_PARAMS, SERVICE_UPDATE, TIME_CORRECT, TIME_CREATE, TIME_VOID, USAGE_QUERY,
} from './services/schemas.ts'
export { createService, getService, listServices, normalizeCreate, serviceExists, updateService } from './services/store.ts'
export type { ServiceInput, ServicePatch } from './services/store.ts'
export { SSH_KEY_SET } from './ssh/schemas.ts'
export { checkPrivateKey } from './ssh/key.ts'
export { enqueueWebhookDeliveries } from './projects/store/fanout.ts'
export { FANNED_OUT_EVENTS } from './projects/store/events.ts'
export { WORKSPACE_ERROR_CODES } from './errors.ts'
