// Two loaders share the durable pull consumer; one dies between the parts of
// its insert (the first day's part reached ClickHouse, the acknowledgement
// never left). JetStream redelivers the same messages to the other loader after
// the ack wait, which loads the rest once: nothing lost, nothing twice.
// (The other variants, and steady ingestion, are in loader-kill.fault.ts.)
import t from 'tap'
import { startTestLookout } from '../helpers/lookout.ts'
import { sameBatchRedelivered } from './lib/same-batch.ts'

const lk = await startTestLookout({ roles: ['api'] })
t.teardown(() => lk.stop())

t.test('a loader dies between the parts of its insert; the same batch comes back to the other loader', (t) => sameBatchRedelivered(t, lk, 'mid-insert'))
