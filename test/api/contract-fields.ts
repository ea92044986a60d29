// The request schemas of the contract (shared/spec/*.md), transcribed field by
// field from its tables, in a compact notation the OpenAPI test checks the
// served document against:
//   type      uuid str int bool obj date datetime any, X[] (array of X), or the
//             name of another schema below (a nested object)
//   ?         nullable            !  required            ~  required unstated (not checked)
//   a..b      length (strings), range (integers), item count (arrays)
//   max N     upper bound only (for strings the lower bound is then 0)
//   >0 >=N <=N  integer bounds    {a,b}  enum (of the items, for arrays)
//   each a..b length of each string item          pattern  a pattern is required
// Only what the spec states is checked: a bound the spec leaves open may be
// the implementation's own (documented in its README).

export type FieldSpec = string
export interface SchemaSpec {
  fields: Record<string, FieldSpec>
  /** Properties the document may have beyond the spec's, with the reason. */
  extensions?: Record<string, string>
}

const fs = (fields: Record<string, FieldSpec>, extensions?: Record<string, string>): SchemaSpec => (extensions === undefined ? { fields } : { fields, extensions })

const PRIORITY = '{low,normal,high,urgent}'
const STATUS_COLORS = '{gray,blue,orange,purple,green,pink,teal}'
const NOTE_COLORS = '{yellow,blue,pink,green,orange,purple,teal,gray}'
const RESOURCE_KINDS = '{website,server,database,api,repository,domain,storage,other}'
const SERVICE_KINDS = '{website,ai,automation,pipeline,cloud,retainer,consulting,development,support,other}'

const TASK_FIELDS = {
  board_id: 'uuid?', type_id: 'uuid?', label_ids: 'uuid[]? max 100', status_id: 'uuid?', service: 'uuid?',
  title: 'str! 1..160', description: 'str max 6000', acceptance: 'str max 4000', deliverable: 'uuid?', source_ticket: 'uuid?',
  priority: `str ${PRIORITY}`, assignee: 'int? >0', reviewer: 'int? >0', starts_on: 'date?', due_on: 'date?',
}

export const SCHEMAS: Record<string, SchemaSpec> = {
  BoardCreate: fs({ board_id: 'uuid?', idempotency_key: 'uuid!', name: 'str! 1..120' }),
  BoardAction: fs({ board_id: 'uuid?', revision: 'int! >=1', action: 'str! {rename,archive,restore}', name: 'str? 1..120' }),
  BoardConfigure: fs({
    board_id: 'uuid?', revision: 'str! 64..64', action: 'str! {create,update,default,reorder,retire}', status_id: 'uuid?',
    name: 'str? 1..60', category: 'str? {todo,doing,done}', color: `str? ${STATUS_COLORS}`, status_ids: 'uuid[]?', replacement_id: 'uuid?',
  }),
  TaxonomyConfigure: fs({
    board_id: 'uuid?', revision: 'str! 64..64', kind: 'str! {type,label}', operation: 'str! {create,update,archive,default,reorder}',
    id: 'uuid?', name: 'str? 1..60', icon: 'str? {task,bug,story,improvement,research,design,support,maintenance}', order: 'uuid[]?',
  }),
  TaskCreate: fs({ ...TASK_FIELDS, idempotency_key: 'uuid!' }),
  TaskUpdate: fs({
    ...TASK_FIELDS, revision: 'int! >=1', title: 'str? 1..160', description: 'str? max 6000', acceptance: 'str? max 4000',
    priority: `str? ${PRIORITY}`,
  }),
  TaskMove: fs({ board_id: 'uuid?', revision: 'int! >=1', target_board_id: 'uuid!', target_status_id: 'uuid!' }),
  Action: fs({
    board_id: 'uuid?', status_id: 'uuid?', revision: 'int! >=1',
    action: 'str! {work,claim,approve,changes,state,reopen,archive,restore,update}', state: 'str? max 20',
    body: 'str max 3000', blocked_reason: 'str max 500', assignee: 'int? >0', priority: `str? ${PRIORITY}`,
  }),
  RevisionInput: fs({ board_id: 'uuid?', revision: 'int! >=1' }),
  CommentCreate: fs({ board_id: 'uuid?', idempotency_key: 'uuid!', body: 'str! 1..4000', visibility: 'str? {shared,internal}' }),
  CommentUpdate: fs({ board_id: 'uuid?', revision: 'int! >=1', body: 'str! 1..4000' }),
  TicketCreate: fs({
    board_id: 'uuid?', idempotency_key: 'uuid!', subject: 'str! 1..160', body: 'str! 1..20000',
    category: 'str {general,technical,billing,change}', resource: 'uuid?', service: 'uuid?',
  }),
  Reply: fs({ board_id: 'uuid?', idempotency_key: 'uuid!', body: 'str! 1..20000', visibility: 'str? {shared,internal}' }),
  DeliverableCreate: fs({
    board_id: 'uuid?', idempotency_key: 'uuid!', title: 'str! 1..160', description: 'str max 6000', acceptance: 'str max 4000',
    owner: 'int? >0', starts_on: 'date?', due_on: 'date?',
  }),
  DeliverableUpdate: fs({
    board_id: 'uuid?', revision: 'int! >=1', title: 'str? 1..160', description: 'str? max 6000', acceptance: 'str? max 4000',
    owner: 'int? >0', starts_on: 'date?', due_on: 'date?',
  }),
  NoteCreate: fs({
    board_id: 'uuid?', idempotency_key: 'uuid!', title: 'str max 120', body: 'str! 1..5000', color: `str ${NOTE_COLORS}`,
    visibility: 'str? {shared,internal}',
  }),
  NoteUpdate: fs({
    board_id: 'uuid?', revision: 'int! >=1', title: 'str? max 120', body: 'str? 1..5000', color: `str? ${NOTE_COLORS}`,
    visibility: 'str? {shared,internal}',
  }),
  ResourceCreate: fs({
    external_id: 'str! 1..200 pattern', name: 'str! 1..160', kind: `str ${RESOURCE_KINDS}`, status: 'str {planned,active,retired}',
    provider: 'str max 120', environment: 'str max 80', description: 'str max 12000', public_url: 'str max 200', details: 'obj max 30',
    sticker: `str {auto,website,server,database,api,repository,domain,storage,other}`, tags: 'str[] max 12 each 1..40',
  }),
  ResourceUpdate: fs({
    name: 'str? 1..160', kind: `str? ${RESOURCE_KINDS}`, status: 'str? {planned,active,retired}', provider: 'str? max 120',
    environment: 'str? max 80', description: 'str? max 12000', public_url: 'str? max 200', details: 'obj? max 30',
    sticker: `str? {auto,website,server,database,api,repository,domain,storage,other}`, tags: 'str[]? max 12 each 1..40',
  }),
  ResourceSSHKeySet: fs({
    alias: 'str! 1..63 pattern', host: 'str! 1..250', port: 'int 1..65535', username: 'str! 1..64 pattern',
    private_key: 'str! 1..32768', passphrase: 'str max 1024',
  }, { host_fingerprint: 'Lookout extension: pins the SSH server host key the managed runtime trusts (workspace/ssh/README.md)' }),
  AlertChange: fs({
    operation: 'str! {subscribe,policy,save_destination,request_verification,verify_destination,pause_destination,remove_destination,test,save_route,pause_route,acknowledge}',
    values: 'AlertValues!',
  }),
  AlertValues: fs({
    operation_id: 'uuid!', id: 'uuid?', incident_id: 'uuid?', revision: 'int? >=0', label: 'str? max 100',
    channel: 'str? {email,sms,webhook,slack,discord}', address: 'str? max 2048', shared: 'bool?', enabled: 'bool?', paused: 'bool?',
    consent: 'bool?', code: 'str? max 64', action: 'str? {subscribe,defaults,unsubscribe}', channels: 'obj?', configuration: 'obj?',
  }),
  // kind log: a Lookout extension (issue 33: a count of matching log lines against a threshold, monitor/README.md).
  MonitorChange: fs({
    id: 'uuid?', name: 'str? 1..100', kind: 'str? {https,tcp,icmp,postgresql,mysql,mariadb,redis,mongodb,heartbeat,log}',
    location: 'str? {public,neura,collector,heartbeat}', configuration: 'obj?', source_id: 'uuid?', credential: 'obj?',
    enabled: 'bool?', required: 'bool?', maintenance_until: 'datetime?',
  }),
  MonitorSourceInput: fs({ action: 'str! {enroll,revoke}', name: 'str max 100', kind: 'str {collector,heartbeat}', source_id: 'uuid?' }),
  MonitorSubscription: fs({ action: 'str! {defaults,save,unsubscribe}', channels: 'obj' }),
  ServiceCreate: fs({
    idempotency_key: 'uuid!', name: 'str! 1..160', kind: `str ${SERVICE_KINDS}`, lifecycle: 'str? {planned,active,paused,ended}',
    owner_id: 'int? >0', modules: 'str[]? {operations,capacity,support}', description: 'str max 12000', public_url: 'str max 200', active: 'bool?',
  }),
  ServiceUpdate: fs({
    idempotency_key: 'uuid!', expected_updated_at: 'str! 1..50', name: 'str? 1..160', kind: `str? ${SERVICE_KINDS}`,
    lifecycle: 'str? {planned,active,paused,ended}', owner_id: 'int? >0', modules: 'str[]? {operations,capacity,support}',
    description: 'str? max 12000', public_url: 'str? max 200', active: 'bool?',
  }),
  TimeCreate: fs({
    idempotency_key: 'uuid!', occurred_at: 'str! 1..50', minutes: 'int! >0 <=6000000', description: 'str! 1..1000',
    internal_notes: 'str max 10000', task_id: 'uuid?', staff_id: 'int? >0', chargeable: 'bool', state: 'str {draft,posted}',
  }),
  TimeCorrect: fs({
    idempotency_key: 'uuid!', revision: 'int! >=1', reason: 'str! 1..1000', occurred_at: 'str? max 50', minutes: 'int? >0 <=6000000',
    description: 'str? 1..1000', internal_notes: 'str? max 10000', task_id: 'uuid?', staff_id: 'int? >0', chargeable: 'bool?',
    state: 'str? {draft,posted}',
  }),
  TimeVoid: fs({ idempotency_key: 'uuid!', revision: 'int! >=1', reason: 'str! 1..1000' }),
  Batch: fs({ events: 'Event[]! 1..1000' }),
  Event: fs({
    message: 'str! max 65536', timestamp: 'datetime?', severity: 'str', source: 'str max 256', attributes: 'obj',
    trace_id: 'str pattern', span_id: 'str pattern',
  }),
  // Desktop (local-desktop-api.md): the tables name fields and bounds; required-ness mostly unstated.
  LegacyBatch: fs({ resource_id: 'uuid~', events: 'LegacyEvent[]~ max 100' }, {
    workspace_id: 'desktop bodies may name the workspace (the spec: the shared workspace id "is passed as workspace_id")',
  }),
  LegacyEvent: fs({
    id: 'str~', timestamp: 'datetime~', severity: 'str~ {debug,info,warning,error,critical}', message: 'str~ max 16000', attributes: 'obj',
  }),
  Heartbeat: fs({ resource_id: 'uuid~', check_id: 'uuid~' }),
  MonitoringAction: fs({ id: 'uuid~', revision: 'int~', action: 'str~ {run,pause,resume,maintenance,end_maintenance}', minutes: 'int~' }),
}

/** Query parameter sets (the document's `in: query` parameters). Extra parameters are allowed (reported). */
export const QUERIES: Record<string, Record<string, FieldSpec>> = {
  FilterSet: {
    board_id: 'uuid', cursor: 'str', limit: 'int 1..100', q: 'str max 160', state: 'str', status_id: 'uuid', type_ids: 'uuid[]',
    label_ids: 'uuid[]', archived: 'bool', deleted: 'bool', assignee_id: 'int >0', unassigned: 'bool', priority: `str ${PRIORITY}`,
    due_before: 'date', due_after: 'date', kind: 'str {task,service_ticket}', deliverable_id: 'uuid',
  },
  ResourceList: { cursor: 'str', limit: 'int 1..100', external_id: 'str 1..200 pattern' },
  RequestHistory: { limit: 'int 1..100', cursor: 'str', key_id: 'uuid', request_id: 'uuid', status: 'int 0..599' },
  ServiceList: { q: 'str max 160', cursor: 'str', limit: 'int 1..100' },
  ServiceUsage: { cursor: 'str', limit: 'int 1..100' },
  RepositoryRead: {
    view: 'str {status,tree,file,search,semantic}', source: 'str {code,wiki}', path: 'str max 2000', query: 'str max 1000',
    limit: 'int 1..100', line: 'int >=1',
  },
  LogQuery: {
    cursor: 'str', limit: 'int 1..200', start: 'datetime', end: 'datetime', severity: 'str {TRACE,DEBUG,INFO,WARN,ERROR,FATAL}',
    q: 'str max 500', trace_id: 'str pattern',
  },
  MonitoringView: { view: 'str {status,history,incidents,deliveries}' },
  DesktopLogQuery: { resource_id: 'uuid', workspace_id: 'uuid', since: 'any', until: 'any', severity: 'any', text: 'any', limit: 'int max 100', cursor: 'str' },
  Notifications: { query: 'any', notification_id: 'any', filter: 'str {all,unread,archived}', page: 'int', limit: 'int max 50' },
}

const P = '/v1/workspaces/{workspace_id}'
const R = `${P}/resources/{resource_id}`

/** Which operation takes which body (spec endpoint tables). */
export const BODIES: readonly [method: string, path: string, schema: string][] = [
  ['post', `${P}/project/boards`, 'BoardCreate'],
  ['post', `${P}/project/boards/{item_id}`, 'BoardAction'],
  ['post', `${P}/tasks/{item_id}/move`, 'TaskMove'],
  ['post', `${P}/project/taxonomy`, 'TaxonomyConfigure'],
  ['post', `${P}/project/statuses`, 'BoardConfigure'],
  ['post', `${P}/deliverables`, 'DeliverableCreate'],
  ['patch', `${P}/deliverables/{item_id}`, 'DeliverableUpdate'],
  ['post', `${P}/deliverables/{item_id}/actions`, 'Action'],
  ['post', `${P}/tasks`, 'TaskCreate'],
  ['patch', `${P}/tasks/{item_id}`, 'TaskUpdate'],
  ['delete', `${P}/tasks/{item_id}`, 'RevisionInput'],
  ['post', `${P}/tasks/{item_id}/actions`, 'Action'],
  ['post', `${P}/notes`, 'NoteCreate'],
  ['patch', `${P}/notes/{item_id}`, 'NoteUpdate'],
  ['post', `${P}/notes/{item_id}/actions`, 'Action'],
  ['post', `${P}/tasks/{item_id}/comments`, 'CommentCreate'],
  ['patch', `${P}/tasks/{item_id}/comments/{comment_id}`, 'CommentUpdate'],
  ['delete', `${P}/tasks/{item_id}/comments/{comment_id}`, 'RevisionInput'],
  // The contract shows no route for these two schemas; Lookout's routes take them (workspace/projects/README.md).
  ['post', `${P}/tickets`, 'TicketCreate'],
  ['post', `${P}/tickets/{item_id}/replies`, 'Reply'],
  ['post', `${P}/resources`, 'ResourceCreate'],
  ['patch', R, 'ResourceUpdate'],
  ['put', `${R}/ssh-key`, 'ResourceSSHKeySet'],
  ['post', `${R}/alerts`, 'AlertChange'],
  ['post', `${R}/monitoring`, 'MonitorChange'],
  ['post', `${R}/monitoring/subscription`, 'MonitorSubscription'],
  ['post', `${R}/monitoring/sources`, 'MonitorSourceInput'],
  ['post', `${P}/services`, 'ServiceCreate'],
  ['patch', `${P}/services/{service_id}`, 'ServiceUpdate'],
  ['post', `${P}/services/{service_id}/time`, 'TimeCreate'],
  ['patch', `${P}/services/{service_id}/time/{entry_id}`, 'TimeCorrect'],
  ['post', `${P}/services/{service_id}/time/{entry_id}/void`, 'TimeVoid'],
  ['post', `${R}/logs`, 'Batch'],
  ['post', '/v1/logs', 'LegacyBatch'],
  ['post', '/v1/heartbeat', 'Heartbeat'],
  ['post', '/v1/monitoring/actions', 'MonitoringAction'],
]

const FILTERED = [
  `${P}/project/boards`, `${P}/project`, `${P}/project/timeline`, `${P}/project/activity`, `${P}/project/assignees`,
  `${P}/project/taxonomy`, `${P}/project/statuses`, `${P}/deliverables`, `${P}/deliverables/{item_id}`, `${P}/tasks`,
  `${P}/tasks/{item_id}`, `${P}/notes`, `${P}/notes/{item_id}`, `${P}/tickets`, `${P}/tasks/{item_id}/comments`,
  `${P}/tickets/{item_id}`,
]

/** Which GET operation takes which query set. */
export const QUERY_ROUTES: readonly [path: string, query: string][] = [
  ...FILTERED.map((p) => [p, 'FilterSet'] as [string, string]),
  [`${P}/resources`, 'ResourceList'],
  [`${P}/api-usage/requests`, 'RequestHistory'],
  [`${P}/services`, 'ServiceList'],
  [`${P}/services/{service_id}/usage`, 'ServiceUsage'],
  [`${R}/repository`, 'RepositoryRead'],
  [`${R}/logs`, 'LogQuery'],
  [`${R}/monitoring`, 'MonitoringView'],
  ['/v1/logs', 'DesktopLogQuery'],
  ['/v1/notifications', 'Notifications'],
]
