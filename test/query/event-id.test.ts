// The event id the routes show (query/event-id.ts): a derived id with its line's
// time in front, a sender's own as given, and back.
import t from 'tap'
import { parseShownEventId, shownEventId } from '../../query/internal.ts'

const base = '0123456789abcdef01234567'
const batch = `${base}00000002`
const ts = 1795486318382532328n // pinned-date: a pure formatter; no clock is read

t.test('a derived id shows its time first; a sender\'s as given', async (t) => {
  const shown = shownEventId(`${base}0000002a`, batch, ts)
  t.equal(shown, `18ead94b2e43c6e8${base}0000002a`)
  t.same(parseShownEventId(shown), { atNs: ts, storedId: `${base}0000002a` })
  // 32 hex digits that do not start with the batch's base: a sender's (an md5, a UUID without dashes).
  t.equal(shownEventId('00112233445566778899aabbccddeeff', batch, ts), '00112233445566778899aabbccddeeff')
  t.equal(shownEventId('evt-1', batch, ts), 'evt-1')
  t.equal(shownEventId(`${base}0000002a`, '', ts), `${base}0000002a`, 'a row without a batch id (written by hand): as stored')
  t.equal(shownEventId(`${base}0000002a0`, batch, ts), `${base}0000002a0`, 'one digit more: not derived')
  t.equal(shownEventId(`${base}0000002a`, batch, 5n), `0000000000000005${base}0000002a`, 'an early time keeps 16 digits')
})

t.test('only the shown form names a time', async (t) => {
  t.equal(parseShownEventId(`${base}0000002a`), null, 'an id shown before the time was (32 digits)')
  t.equal(parseShownEventId(`18EAD94B2E43C6E8${base}0000002a`), null, 'upper case is not a form we show')
  t.equal(parseShownEventId('evt-1'), null)
  t.equal(parseShownEventId(`x${'0'.repeat(47)}`), null)
})
