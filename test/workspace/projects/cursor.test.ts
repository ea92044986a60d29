// Keyset cursors (core/cursor.ts) are signed: any altered character is refused,
// including the signature's last one, whose unused bits decode to the same bytes.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { CursorCodec } from '../../../core/cursor.ts'

t.test('a cursor reads back; every one-character alteration is refused', async (t) => {
  const codec = new CursorCodec(randomBytes(32))
  for (let n = 0; n < 20; n++) {
    const values = [new Date(Date.now() - n * 60_000).toISOString(), `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, n]
    const c = codec.encode('tasks', values)
    t.same(codec.decode('tasks', c), values)
    t.equal(codec.decode('notes', c), null, 'another kind')
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    let refused = 0
    for (let i = 0; i < c.length; i++) {
      if (c[i] === '.') continue
      const other = alphabet[(alphabet.indexOf(c[i] as string) + 1 + n) % 64] as string
      if (codec.decode('tasks', c.slice(0, i) + other + c.slice(i + 1)) === null) refused++
    }
    t.equal(refused, c.length - 1, `all ${c.length - 1} alterations of cursor ${n} refused`)
  }
  t.equal(codec.decode('tasks', 'no-dot'), null)
  t.equal(codec.decode('tasks', 'a.' + 'b'.repeat(5000)), null, 'over 4096 characters')
  t.equal(new CursorCodec(randomBytes(32)).decode('tasks', codec.encode('tasks', [1])), null, 'another server secret')
})
