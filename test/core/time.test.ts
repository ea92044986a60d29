// formatNsText (the search's rows) must write exactly what formatNs writes, for
// any time the store can hold, in any order: its reused second must never leak
// into a line of another second.
import t from 'tap'
import { formatNs, formatNsText } from '../../core/index.ts'

/** The times whose text form formatNsText writes otherwise than formatNs. */
const differing = (times: bigint[]) => times.filter((ns) => formatNsText(ns.toString()) !== formatNs(ns)).map(String)

t.test('edges of the text form', async (t) => {
  t.same(differing([0n, 1n, 999_999_999n, 1_000_000_000n, 1_000_000_001n, -1n, -999_999_999n, -1_000_000_000n, -1_500_000_000n,
    9_223_372_036_854_775_807n, 1_795_878_845_000_000_000n, 1_795_878_845_999_999_999n]), [])
  t.equal(formatNsText('1795878845000000001'), '2026-11-28T15:14:05.000000001Z') // pinned-date: a pure conversion; no clock is read
})

t.test('a second reused only for its own lines', async (t) => {
  const a = 1_795_878_845_000_000_000n
  // Alternating seconds, the same second again, and the same fraction in another second.
  t.same(differing([a, a + 1n, a + 1_000_000_000n, a + 2n, a + 1_000_000_002n, a + 2n, a - 86_400_000_000_000n + 2n, a + 2n]), [])
})

t.test('times across the range the engine holds, in random order', async (t) => {
  // DateTime64(9) spans 1900 to 2262; a seeded walk over it.
  let x = 0x2545f491n
  let bad = 0
  for (let i = 0; i < 20_000; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn
    const ns = (x % 11_000_000_000_000_000_000n) - 2_208_988_800_000_000_000n
    if (formatNsText(ns.toString()) !== formatNs(ns)) bad++
  }
  t.equal(bad, 0, '20,000 times agree')
})
