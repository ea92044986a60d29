// Each item keeps its list representation ready: `list_doc`, the exact JSON text
// the routes send for it (toTask / toNote / toDeliverable in items.ts, same keys,
// same order, same escaping), so a list page is an index range scan over one text
// column and a concatenation: no 35 columns parsed by the driver and serialized again.
//
// A BEFORE INSERT OR UPDATE trigger writes it, so it is refreshed in the same
// statement as every write of the row: the store's updates, actions, moves, status
// retirement, and the portal's sync and id rewrites alike; no write path can forget
// it. The column is NOT NULL: a field the builder failed to make JSON (a NULL in a
// concatenation) fails the write instead of emptying the list. Since migration 6 an
// insert that brings its document keeps it: the task batch (task-batch.ts) writes
// JSON.stringify(toTask(row)), this text, and skips a per-row trigger.
//
// This text is migration `projects` 4 and is never edited: a change of an item's
// view takes a new migration that replaces project_item_doc and refreshes the rows
// (`UPDATE project_items SET list_doc = project_item_doc(project_items)`).
// test/workspace/projects/list-docs.test.ts compares each list entry with the item's own
// route after every kind of write.

const TIME_FORMAT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`

const COMMON = `
      || ',"archived":' || (i.archived_at IS NOT NULL)::text || ',"archived_at":' || project_json_time(i.archived_at)
      || ',"deleted":' || (i.deleted_at IS NOT NULL)::text || ',"deleted_at":' || project_json_time(i.deleted_at)
      || ',"revision":' || i.revision::text || ',"created_by":' || project_json(i.created_by)
      || ',"created_at":' || project_json_time(i.created_at) || ',"updated_at":' || project_json_time(i.updated_at) || '}'`

const HEAD = (type: string) => `'{"id":' || to_json(i.id)::text || ',"item_type":"${type}","workspace_id":' || to_json(i.workspace_id)::text
      || ',"board_id":' || to_json(i.board_id)::text`

const TASK = `${HEAD('task')}
      || ',"number":' || project_json(i.number) || ',"kind":' || to_json(i.kind)::text
      || ',"title":' || to_json(i.title)::text || ',"description":' || to_json(i.description)::text
      || ',"acceptance":' || to_json(i.acceptance)::text || ',"type_id":' || project_json(i.type_id)
      || ',"label_ids":' || to_json(i.label_ids)::text || ',"status_id":' || project_json(i.status_id)
      || ',"service":' || project_json(i.service) || ',"deliverable":' || project_json(i.deliverable)
      || ',"source_ticket":' || project_json(i.source_ticket) || ',"priority":' || project_json(i.priority)
      || ',"assignee":' || project_json(i.assignee) || ',"reviewer":' || project_json(i.reviewer)
      || ',"starts_on":' || project_json(i.starts_on) || ',"due_on":' || project_json(i.due_on)
      || ',"state":' || project_json(i.state) || ',"blocked_reason":' || to_json(i.blocked_reason)::text
      || ',"assignment_revision":' || i.assignment_revision::text || ',"origin":' || to_json(i.origin)::text${COMMON}`

const NOTE = `${HEAD('note')}
      || ',"number":null,"title":' || to_json(i.title)::text || ',"body":' || to_json(i.body)::text
      || ',"color":' || project_json(i.color) || ',"visibility":' || project_json(i.visibility)${COMMON}`

const DELIVERABLE = `${HEAD('deliverable')}
      || ',"title":' || to_json(i.title)::text || ',"description":' || to_json(i.description)::text
      || ',"acceptance":' || to_json(i.acceptance)::text || ',"owner":' || project_json(i.owner)
      || ',"starts_on":' || project_json(i.starts_on) || ',"due_on":' || project_json(i.due_on)
      || ',"state":' || project_json(i.state) || ',"blocked_reason":' || to_json(i.blocked_reason)::text${COMMON}`

/** Live tasks, the lists people page all day (the filter set's default archived=false, deleted=false). */
const LIVE_TASKS = `item_type = 'task' AND deleted_at IS NULL AND archived_at IS NULL`

export const LIST_DOC_SQL = `
  -- A value as JSON text, null included (to_json of a NULL is NULL, and NULL || text is NULL).
  -- Dates come out as YYYY-MM-DD whatever the session's DateStyle.
  CREATE FUNCTION project_json(anyelement) RETURNS text LANGUAGE sql STABLE
    AS $$ SELECT coalesce(to_json($1)::text, 'null') $$;
  -- Timestamps as the item views give them: UTC, milliseconds, a Z.
  CREATE FUNCTION project_json_time(timestamptz) RETURNS text LANGUAGE sql STABLE
    AS $$ SELECT coalesce('"' || to_char($1 AT TIME ZONE 'UTC', ${TIME_FORMAT}) || '"', 'null') $$;

  ALTER TABLE project_items ADD COLUMN list_doc text;
  CREATE FUNCTION project_item_doc(i project_items) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT CASE i.item_type
      WHEN 'task' THEN ${TASK}
      WHEN 'note' THEN ${NOTE}
      ELSE ${DELIVERABLE}
    END
  $$;
  -- Existing rows (a data directory from before this migration).
  UPDATE project_items SET list_doc = project_item_doc(project_items);
  ALTER TABLE project_items ALTER COLUMN list_doc SET NOT NULL;

  CREATE FUNCTION project_items_list_doc() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    NEW.list_doc := project_item_doc(NEW);
    RETURN NEW;
  END
  $$;
  CREATE TRIGGER project_items_list_doc BEFORE INSERT OR UPDATE ON project_items
    FOR EACH ROW EXECUTE FUNCTION project_items_list_doc();

  -- The live task list in page order with the filter set's equality and range filters
  -- as key columns after seq: a combination of them (priority, state, kind, assignee or
  -- unassigned, due dates, type, status) is checked on the index entry, so only the
  -- page's rows are read from the heap. Status, a board's columns, leads its own index.
  -- Assignee, board, deliverable and tickets keep the leading indexes of migration 1 and 2;
  -- labels (array overlap) and q (substring) are checked on the rows.
  CREATE INDEX project_tasks_list ON project_items
    (workspace_id, seq DESC, status_id, priority, state, kind, assignee, due_on, type_id)
    WHERE ${LIVE_TASKS};
  CREATE INDEX project_tasks_by_status ON project_items
    (workspace_id, status_id, seq DESC, priority, state, assignee, type_id)
    WHERE ${LIVE_TASKS};
`
