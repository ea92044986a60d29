import t from 'tap'
import { parseBenchArgs, parseDuration, parseMix, parseRate } from '../../bench/ingest/options.ts'

t.test('durations, rates and mixes', async (t) => {
  t.equal(parseDuration('d', '500ms'), 500)
  t.equal(parseDuration('d', '30s'), 30_000)
  t.equal(parseDuration('d', '2m'), 120_000)
  t.equal(parseDuration('d', '1.5h'), 5_400_000)
  t.equal(parseDuration('d', '7d'), 604_800_000)
  t.equal(parseDuration('d', '12'), 12_000, 'a bare number is seconds')
  t.throws(() => parseDuration('duration', '10 minutes'), { message: /--duration must be a duration/ })
  t.equal(parseRate('r', '400000'), 400_000)
  t.equal(parseRate('r', '50k'), 50_000)
  t.equal(parseRate('r', '1.5M'), 1_500_000)
  t.throws(() => parseRate('rate', '0'), { code: 'LOOKOUT_USAGE', message: /--rate must be above 0/ })
  t.throws(() => parseRate('rate', 'fast'), { message: /--rate must be a rate/ })
  t.same(parseMix('mixed'), { access: 0.7, app: 0.25, stack: 0.05 })
  t.same(parseMix('access=3,stack=1'), { access: 3, stack: 1 })
  t.throws(() => parseMix('trace=1'), { code: 'LOOKOUT_USAGE' })
  t.throws(() => parseMix('access=0'), { message: /weight above 0/ })
})

t.test('defaults: a child pipeline, one OTLP protobuf scenario at a fixed rate', async (t) => {
  const o = parseBenchArgs([], '/tmp/out')
  t.equal(o.pipeline, 'child')
  t.same(o.scenarios, ['otlp-proto'])
  t.equal(o.records, 1000)
  t.equal(o.findMax, false)
  t.equal(o.rate, 20_000)
  t.equal(o.durationMs, 30_000)
  // 30 s, not 10: a 10 s step passed rates whose backlog a longer flood never worked off (bench/ingest README).
  t.equal(o.stepMs, 30_000, 'find-max steps of 30 s by default')
  t.equal(o.retentionDays, 7)
  t.equal(o.out, '/tmp/out')
  t.equal(o.baselineEvents, 200_000)
})

t.test('the issue\'s example and find-max options', async (t) => {
  const o = parseBenchArgs(['--find-max', '--rate', '10k', '--step', '5s', '--target', '400000', '--retention', '7d', '--scenario', 'otlp-proto-gzip', '--scenario', 'json', '--mix', 'mixed', '--resources', '5'], '/tmp/out')
  t.equal(o.findMax, true)
  t.equal(o.rate, 10_000)
  t.equal(o.stepMs, 5000)
  t.equal(o.target, 400_000)
  t.equal(o.retentionDays, 7)
  t.same(o.scenarios, ['otlp-proto-gzip', 'json'])
  t.equal(o.records, 1000, 'the JSON batch route takes at most 1000 events')
  t.equal(o.resources, 5)
})

t.test('--baseline-events takes counts with suffixes, and 0', async (t) => {
  t.equal(parseBenchArgs(['--baseline-events', '100k'], '/o').baselineEvents, 100_000)
  t.equal(parseBenchArgs(['--baseline-events', '1.5M'], '/o').baselineEvents, 1_500_000)
  t.equal(parseBenchArgs(['--baseline-events', '0'], '/o').baselineEvents, 0, '0 skips the baselines')
  t.equal(parseBenchArgs(['--baseline-events', '300'], '/o').baselineEvents, 300)
  t.throws(() => parseBenchArgs(['--baseline-events', '1.5'], '/o'), { message: /--baseline-events must be a count/ })
  t.throws(() => parseBenchArgs(['--baseline-events', 'lots'], '/o'), { message: /--baseline-events must be a count/ })
  t.throws(() => parseBenchArgs(['--baseline-events=-5'], '/o'), { message: /--baseline-events must be a count/ })
})

t.test('route limits and pipeline choices are checked', async (t) => {
  t.equal(parseBenchArgs(['--scenario', 'legacy'], '/o').records, 100, 'legacy batches default to their maximum, 100')
  t.throws(() => parseBenchArgs(['--scenario', 'legacy', '--records', '101'], '/o'), { message: /--records must be an integer from 1 to 100/ })
  t.throws(() => parseBenchArgs(['--scenario', 'json', '--records', '1001'], '/o'), { message: /from 1 to 1000/ })
  t.throws(() => parseBenchArgs(['--scenario', 'grpc'], '/o'), { message: /--scenario must be one of/ })
  t.throws(() => parseBenchArgs(['--url', 'http://x:1'], '/o'), { message: /--url needs --token and --workspace/ })
  const u = parseBenchArgs(['--url', 'http://x:1/', '--token', 'T', '--workspace', 'W', '--resource', 'a, b'], '/o')
  t.equal(u.pipeline, 'url')
  t.equal(u.url, 'http://x:1')
  t.same(u.resourceIds, ['a', 'b'])
  t.equal(u.resources, 2)
  t.throws(() => parseBenchArgs(['--token', 'T'], '/o'), { message: /--token goes with --url/ })
  t.throws(() => parseBenchArgs(['--pipeline', 'running', '--workers', '2'], '/o'), { message: /--workers applies/ })
  t.throws(() => parseBenchArgs(['--pipeline', 'cloud'], '/o'), { message: /--pipeline must be/ })
  t.throws(() => parseBenchArgs(['--bogus'], '/o'), { code: 'LOOKOUT_USAGE', message: /Unknown option '--bogus'/ })
  const e = (() => {
    try {
      parseBenchArgs(['--rate', 'x'], '/o')
    } catch (err) {
      return err as { code?: string }
    }
  })()
  t.equal(e?.code, 'LOOKOUT_USAGE', 'the launcher exits 2 on it')
})
