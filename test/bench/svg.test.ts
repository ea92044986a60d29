import t from 'tap'
import { escapeXml, fmtTick, lineChart, niceTicks, stackedBars } from '../../bench/ingest/svg.ts'

/** Every opened element is closed, in order (a small well-formedness check). */
function balanced(svg: string): boolean {
  const stack: string[] = []
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
    if (m[3] === '/') continue
    if (m[1] === '/') {
      if (stack.pop() !== m[2]) return false
    } else stack.push(m[2] as string)
  }
  return stack.length === 0
}

t.test('ticks and labels', async (t) => {
  t.same(niceTicks(0, 10), [0, 2, 4, 6, 8, 10])
  t.same(niceTicks(0, 97_000, 5), [0, 20_000, 40_000, 60_000, 80_000])
  t.same(niceTicks(3, 3), [3])
  t.equal(fmtTick(40_000, 20_000), '40k')
  t.equal(fmtTick(4500, 500), '4.5k')
  t.equal(fmtTick(1_500_000, 500_000), '1.5M')
  t.equal(fmtTick(0.25, 0.05), '0.25')
  t.equal(fmtTick(7.5, 2.5), '7.5', 'as many decimals as the spacing needs')
  t.equal(fmtTick(10, 2.5), '10')
  t.equal(fmtTick(0), '0')
  t.equal(fmtTick(2000), '2k')
  t.equal(fmtTick(0.2), '0.2')
  t.equal(escapeXml('a<b & "c"'), 'a&lt;b &amp; &quot;c&quot;')
})

t.test('a line chart: axes, series, markers, escaped text', async (t) => {
  const svg = lineChart({
    title: 'Throughput <vs> latency', xLabel: 'events/s', yLabel: 'ms', logY: true, xFromZero: true,
    series: [{ name: 'p50', points: [[10_000, 3], [20_000, 5], [40_000, 40]] }, { name: 'p99 & more', points: [[10_000, 12], [20_000, 30], [40_000, 900]] }],
    markers: [{ x: 20_000, label: 'step 2' }],
  })
  t.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'))
  t.ok(balanced(svg), 'well formed')
  t.match(svg, /Throughput &lt;vs&gt; latency/)
  t.match(svg, /p99 &amp; more/)
  t.equal((svg.match(/<polyline/g) ?? []).length, 2)
  t.equal((svg.match(/<circle/g) ?? []).length, 6)
  t.match(svg, />1k</, 'log axis decades')
  t.match(svg, />step 2</)
  t.notMatch(svg, /NaN/)
})

t.test('empty and degenerate data still make a valid picture', async (t) => {
  const empty = lineChart({ title: 't', xLabel: 'x', yLabel: 'y', series: [{ name: 's', points: [] }] })
  t.ok(balanced(empty))
  t.match(empty, /no data/)
  const one = lineChart({ title: 't', xLabel: 'x', yLabel: 'y', series: [{ name: 's', points: [[5, Number.NaN], [5, 2]], scatter: true }] })
  t.ok(balanced(one))
  t.notMatch(one, /NaN|Infinity/)
  t.equal((one.match(/<circle/g) ?? []).length, 1, 'the NaN point is left out')
})

t.test('stacked bars', async (t) => {
  const svg = stackedBars({ title: 'CPU', yLabel: 's per million', categories: ['a', 'b'], stacks: [{ name: 'main', values: [1, 2] }, { name: 'nats', values: [0.5, Number.NaN] }] })
  t.ok(balanced(svg))
  t.equal((svg.match(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill="#[0-9a-f]{6}"><title>/g) ?? []).length, 3, 'three non-empty segments')
  t.match(svg, />1\.5</, 'bar totals')
  t.notMatch(svg, /NaN/)
  t.match(stackedBars({ title: 'x', yLabel: 'y', categories: [], stacks: [] }), /no data/)
})
