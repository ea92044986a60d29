// writeJsonString must write exactly the UTF-8 bytes of JSON.stringify: the
// stored rows are parsed by ClickHouse and by parseStoredRow alike.
import t from 'tap'
import { JSON_BYTES_PER_UNIT, writeAscii, writeHex8, writeJsonString } from './fixtures/json-bytes.ts'

function encoded(s: string): Buffer {
  const buf = Buffer.alloc(JSON_BYTES_PER_UNIT * s.length + 2)
  return buf.subarray(0, writeJsonString(buf, 0, s))
}

t.test('equals JSON.stringify for every kind of character', async (t) => {
  const cases = [
    '', 'plain ascii', 'quote " and backslash \\', 'controls \b\t\n\f\r \u0000 \u0001 \u001f \u007f',
    'latin é ñ ü', 'cjk 日本語', 'emoji 😀 🚀', 'lone high \ud800 x', 'lone low \udc00 x', 'high at end \ud83d',
    'low then high \udc00\ud800', 'max bmp \uffff', 'bom \ufeff', 'line sep \u2028 \u2029',
  ]
  // Named by index: U+2028 in a name would break the TAP line.
  cases.forEach((s, i) => t.same(encoded(s), Buffer.from(JSON.stringify(s)), `case ${i}`))
})

t.test('random strings over the whole UTF-16 range', async (t) => {
  let seed = 7
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return seed % n
  }
  let mismatches = 0
  for (let k = 0; k < 3000; k++) {
    const units: number[] = []
    const len = rand(40)
    for (let i = 0; i < len; i++) {
      const pick = rand(5)
      units.push(pick === 0 ? rand(0x80) : pick === 1 ? 0x80 + rand(0x780) : pick === 2 ? 0xd800 + rand(0x800) : pick === 3 ? rand(0x10000) : rand(0x20))
    }
    const s = String.fromCharCode(...units)
    if (!encoded(s).equals(Buffer.from(JSON.stringify(s)))) mismatches++
  }
  t.equal(mismatches, 0, 'no string of 3000 encodes differently from JSON.stringify')
})

t.test('the worst case fits the reserved room', async (t) => {
  const s = '\u0001'.repeat(10) + '\ud800'.repeat(10)
  const buf = Buffer.alloc(JSON_BYTES_PER_UNIT * s.length + 2)
  t.equal(writeJsonString(buf, 0, s), buf.length, 'control characters and lone surrogates take 6 bytes each')
})

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
t.test('ASCII and hex helpers', async (t) => {
  const buf = Buffer.alloc(32)
  let p = writeAscii(buf, 0, '1700000000000000000')
  p = writeHex8(buf, p, 0xdeadbeef)
  t.equal(buf.toString('latin1', 0, p), '1700000000000000000deadbeef')
  t.equal(buf.toString('latin1', 0, writeHex8(buf, 0, 10)), '0000000a')
})
