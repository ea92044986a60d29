// A probe kind is declared once (its probe file's declareKind, one line in
// monitor/probes/registry.ts): the kind tables, the configuration schemas and
// checks, and the runners of the monitor role and of the collector are all read
// from that list. A kind declared here, in the test's own list, goes through
// the same production code: it is validated, defaulted, refused and run.
import t from 'tap'
import {
  ALL_KINDS, COLLECTOR_KINDS, CONFIG_SCHEMAS, DEFAULT_CONCURRENCY, KIND_DECLARATIONS, KIND_SPECS, PROBE_REASONS,
  configParser, createRunners, declareKind, kindTables, parseConfig, probeAnywhere, runnersOf,
  type KindDeclaration, type Outcome, type ProbeTarget, type Runner,
} from '../../monitor/internal.ts'

class EchoRunner implements Runner {
  async run(target: ProbeTarget): Promise<Outcome> {
    const word = String(target.config.word)
    return { status: word === 'down' ? 'down' : 'up', code: word === 'down' ? PROBE_REASONS.body : PROBE_REASONS.ok, reason: `echo ${word}`, latencyMs: null, details: null }
  }
}

const ECHO = declareKind({
  name: 'echo',
  spec: probeAnywhere(3),
  properties: { word: { type: 'string', minLength: 1, maxLength: 20 }, loud: { type: 'boolean', default: false } },
  required: ['word'],
  check: (c) => (c.word === 'never' ? [{ instancePath: '/word', keyword: 'value_error', params: {}, message: 'never is refused' }] : []),
  runner: () => new EchoRunner(),
})

const BEAT = declareKind({
  name: 'beat',
  spec: { concurrency: 5, locations: ['heartbeat'], refusal: 'a beat check has location heartbeat' },
  properties: { grace_seconds: { type: 'integer', minimum: 0, default: 7 } },
  passive: { graceMs: (c) => (c.grace_seconds as number) * 1000 },
  runner: () => new EchoRunner(),
})

const TEST_LIST: readonly KindDeclaration[] = [...KIND_DECLARATIONS, ECHO, BEAT]

t.test('every kind of the registry has its spec, schema and runner, and nothing else has', async (t) => {
  const names = KIND_DECLARATIONS.map((d) => d.name)
  t.same(ALL_KINDS, names, 'the kinds are the registry\'s, in its order')
  t.same(Object.keys(KIND_SPECS), names)
  t.same(Object.keys(DEFAULT_CONCURRENCY), names)
  t.same(Object.keys(CONFIG_SCHEMAS), names)
  for (const d of KIND_DECLARATIONS) {
    t.equal(KIND_SPECS[d.name], d.spec, `${d.name}: its spec`)
    t.equal(DEFAULT_CONCURRENCY[d.name], d.spec.concurrency, `${d.name}: its concurrency`)
    const props = Object.keys((CONFIG_SCHEMAS[d.name] as { properties: object }).properties)
    t.same(props.filter((p) => p !== 'interval_seconds' && p !== 'timeout_seconds'), Object.keys(d.properties), `${d.name}: its schema`)
  }
  // The collector runs these (collector/schedule.ts: createRunners(null, {}, COLLECTOR_KINDS)).
  t.same(COLLECTOR_KINDS, KIND_DECLARATIONS.filter((d) => d.spec.locations.includes('collector')).map((d) => d.name))
  t.notOk(COLLECTOR_KINDS.includes('heartbeat'))
  t.notOk(COLLECTOR_KINDS.includes('log'))
  const runners = createRunners(null, {}, COLLECTOR_KINDS)
  t.same(Object.keys(runners), COLLECTOR_KINDS, 'a runner for each kind a collector runs, without a store')
  t.equal(runners.postgresql, runners.mongodb, 'the database kinds share one runner (one pool of drivers)')
  t.not(runners.https, runners.tcp)
  t.throws(() => createRunners(null, {}, ['heartbeat']), /judged from the store/)
})

t.test('a kind declared in another list is validated, defaulted and run by the same code', async (t) => {
  const tables = kindTables(TEST_LIST)
  t.same(tables.all.slice(-2), ['echo', 'beat'])
  t.equal(tables.concurrency.echo, 3)
  t.ok(tables.collector.includes('echo'), 'an active probe runs at a collector too')
  t.notOk(tables.collector.includes('beat'))

  const parser = configParser(TEST_LIST)
  const ok = parser.parse('echo', { word: 'hello', interval_seconds: 5 })
  t.same(ok, { ok: true, config: { stored: { word: 'hello', interval_seconds: 5, loud: false, timeout_seconds: 5 }, intervalMs: 5000, timeoutMs: 5000, graceMs: 0 } })
  const extra = parser.parse('echo', { word: 'hello', colour: 'red' })
  t.match(extra, { ok: false, issues: [{ keyword: 'additionalProperties', params: { additionalProperty: 'colour' } }] })
  t.match(parser.parse('echo', {}), { ok: false, issues: [{ keyword: 'required', params: { missingProperty: 'word' } }] })
  t.match(parser.parse('echo', { word: 'never' }), { ok: false, issues: [{ instancePath: '/word', message: 'never is refused' }] })
  t.match(parser.parse('echo', { word: 'x', timeout_seconds: 200, interval_seconds: 100 }), { ok: false, issues: [{ instancePath: '/timeout_seconds' }] })

  t.same(parser.parse('beat', {}), { ok: true, config: { stored: { interval_seconds: 120, grace_seconds: 7 }, intervalMs: 120_000, timeoutMs: 0, graceMs: 7000 } },
    'a passive kind: no timeout, its grace')
  t.match(parser.parse('beat', { timeout_seconds: 1 }), { ok: false, issues: [{ keyword: 'additionalProperties' }] })
  t.throws(() => parser.parse('unlisted', {}), /no declaration of the probe kind unlisted/)
  t.same(parser.parse('tcp', { host: 'h', port: 1 }), parseConfig('tcp', { host: 'h', port: 1 }), 'the registry\'s kinds as parseConfig gives them')

  const runners = runnersOf(TEST_LIST, { db: null }, ['echo', 'beat', 'tcp'])
  t.not(runners.echo, runners.beat, 'two kinds, two factories, two runners')
  const stored = ok.ok ? ok.config.stored : {}
  const target: ProbeTarget = { checkId: 'c', kind: 'echo', config: stored, credential: null, timeoutMs: 5000, intervalMs: 5000, graceMs: 0, activeSince: 0 }
  t.match(await runners.echo!.run(target, { credentials: { fileDirs: [] }, now: 0 }), { status: 'up', reason: 'echo hello' })
})

t.test('a kind declared twice is refused', async (t) => {
  t.throws(() => kindTables([...TEST_LIST, ECHO]), /the probe kind echo is declared twice/)
})
