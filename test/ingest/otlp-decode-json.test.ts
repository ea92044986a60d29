// OTLP/JSON logs decoder: the official serializer's JSON decodes like its protobuf,
// the JSON-specific spellings (numbers as strings, snake_case, enum names) map the same,
// malformed JSON is refused; and the export response encodings.

import t from 'tap'
import { encodeExportLogsResponse, exportLogsResponseJson } from '../../ingest/decode/otlp-response.ts'
import { Response, isOkOrMalformed, log, outcome, protoOf, jsonOf, records, rng, viaJson, viaProto } from './fixtures/otlp-requests.ts'

t.test('JSON: official serializer output decodes like the protobuf request', async t => {
  const logs = records()
  const fromJson = viaJson(jsonOf(logs))
  const fromProto = viaProto(protoOf(logs))
  t.same(fromJson.result, fromProto.result)
  t.equal(fromJson.rows.length, fromProto.rows.length)
  for (let i = 0; i < fromProto.rows.length; i++) t.same(fromJson.rows[i], fromProto.rows[i], `row ${i}`)
})

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
t.test('JSON: numbers vs strings, snake_case, enum names, nulls', async t => {
  const request = {
    resource_logs: [{
      resource: { attributes: [{ key: 'service.name', value: { string_value: 'svc' } }], dropped_attributes_count: 0 },
      scope_logs: [{
        scope: { name: 's', version: null },
        log_records: [
          {
            time_unix_nano: 1700000000000000000,
            observed_time_unix_nano: '01700000000000000001',
            severity_number: 'SEVERITY_NUMBER_ERROR3',
            body: { string_value: 'snake' },
            attributes: [
              { key: 'i.str', value: { int_value: '9007199254740993' } },
              { key: 'i.num', value: { intValue: -5 } },
              { key: 'i.zero', value: { intValue: '-0' } },
              { key: 'd.str', value: { double_value: '1.5' } },
              { key: 'd.nan', value: { doubleValue: 'NaN' } },
              { key: 'd.inf', value: { doubleValue: '-Infinity' } },
              { key: 'b', value: { bytes_value: 'AQID' } },
              { key: 'b.url', value: { bytesValue: '-_8' } },
              { key: 'kv', value: { kvlist_value: { values: [{ key: 'x', value: { bool_value: true } }, { key: 'y', value: null }] } } },
              { key: 'arr', value: { array_value: { values: [{ int_value: '9007199254740993' }, { int_value: 1 }, {}, { double_value: 'Infinity' }] } } },
              { key: 'none', value: null },
            ],
            trace_id: '0102030405060708090A0B0C0D0E0F10',
            span_id: 'A1A2A3A4A5A6A7A8',
            flags: '257',
            event_name: 'e.v',
          },
          { timeUnixNano: '1700000000000000002', severityNumber: 13, body: null, severityText: null },
          { timeUnixNano: '1700000000000000003', severityNumber: 'SEVERITY_NUMBER_BOGUS', severityText: 'debug' },
          { timeUnixNano: '1700000000000000004', severityNumber: '21', body: { kvlistValue: { values: [] } } },
        ],
      }],
    }],
  }
  const { result, rows } = viaJson(JSON.stringify(request))
  t.same(result, { accepted: 4, rejected: 0, errorMessage: '' })
  t.match(rows[0], {
    timestamp: '1700000000000000000', observed_timestamp: '1700000000000000001', severity_number: 19, severity_text: 'ERROR',
    message: 'snake', source: 'svc', scope_name: 's', scope_version: '', trace_id: '0102030405060708090a0b0c0d0e0f10',
    span_id: 'a1a2a3a4a5a6a7a8', flags: 257,
  })
  t.same(rows[0]?.attributes, {
    'i.str': '9007199254740993', 'i.num': '-5', 'i.zero': '0', 'd.str': '1.5', 'd.nan': 'NaN', 'd.inf': '-Infinity',
    'b': 'AQID', 'b.url': '+/8=', 'kv.x': 'true', 'kv.y': '', 'arr': '["9007199254740993",1,null,"Infinity"]', 'none': '', 'event.name': 'e.v',
  })
  t.match(rows[1], { severity_number: 13, severity_text: 'WARN', message: '' })
  t.match(rows[2], { severity_number: 5, severity_text: 'debug' })
  t.match(rows[3], { severity_number: 21, severity_text: 'FATAL', message: '{}' })
  const padded = viaJson(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '0000000000000000000001700000000000000005', body: { intValue: '-0000000000000000000042' } }] }] }] }))
  t.match(padded.rows[0], { timestamp: '1700000000000000005', message: '-42' })
  t.same(viaJson('{}').result, { accepted: 0, rejected: 0, errorMessage: '' })
  t.same(viaJson('{"resourceLogs":null}').result.accepted, 0)
})

t.test('JSON: malformed input', async t => {
  const rec = (lr: unknown): string => JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [lr] }] }] })
  const bad = {
    'not JSON': '{"resourceLogs": [',
    'empty body': '',
    'top-level array': '[]',
    'top-level null': 'null',
    'resourceLogs not an array': '{"resourceLogs":{}}',
    'resourceLogs item not an object': '{"resourceLogs":[1]}',
    'scopeLogs not an array': '{"resourceLogs":[{"scopeLogs":"x"}]}',
    'logRecords not an array': '{"resourceLogs":[{"scopeLogs":[{"logRecords":{}}]}]}',
    'time not a number': rec({ timeUnixNano: 'abc' }),
    'time negative': rec({ timeUnixNano: -1 }),
    'time fraction': rec({ timeUnixNano: 1.5 }),
    'time over uint64': rec({ timeUnixNano: '18446744073709551616' }),
    'time number over uint64': rec({ timeUnixNano: 1e25 }),
    'body not an object': rec({ body: 'text' }),
    'attributes not an array': rec({ attributes: {} }),
    'attribute key not a string': rec({ attributes: [{ key: 1, value: { stringValue: 'x' } }] }),
    'intValue fraction': rec({ body: { intValue: '1.5' } }),
    'intValue over int64': rec({ body: { intValue: '9223372036854775808' } }),
    'boolValue a string': rec({ body: { boolValue: 'true' } }),
    'doubleValue garbage': rec({ body: { doubleValue: 'x' } }),
    'bytesValue not base64': rec({ body: { bytesValue: '***' } }),
    'stringValue a number': rec({ body: { stringValue: 5 } }),
    'arrayValue values not an array': rec({ body: { arrayValue: { values: 1 } } }),
    'severityNumber an object': rec({ severityNumber: {} }),
    'flags negative': rec({ flags: -1 }),
  }
  for (const [why, text] of Object.entries(bad)) t.equal(outcome(() => viaJson(text)), 'malformed', why)
})

t.test('JSON: 5k mutated requests never crash', async t => {
  const rand = rng(9)
  const base = jsonOf(records().slice(0, 4))
  const alphabet = '{}[]":,0123456789-.eE truefalsnul\\'
  let unexpected: unknown = null
  const seen = { ok: 0, malformed: 0 }
  for (let i = 0; i < 5000; i++) {
    const chars = base.split('')
    const edits = 1 + Math.floor(rand() * 3)
    for (let k = 0; k < edits; k++) chars[Math.floor(rand() * chars.length)] = alphabet[Math.floor(rand() * alphabet.length)]!
    const o = outcome(() => viaJson(chars.join('')))
    if (isOkOrMalformed(o)) seen[o as 'ok' | 'malformed']++
    else if (unexpected === null) unexpected = o
  }
  t.equal(unexpected, null)
  t.ok(seen.ok > 0 && seen.malformed > 0, JSON.stringify(seen))
})

t.test('encodeExportLogsResponse matches protobufjs', async t => {
  t.equal(encodeExportLogsResponse(0, '').length, 0)
  t.same(Response.toObject(Response.decode(encodeExportLogsResponse(0, '')), { longs: String }), {})
  const cases: [number, string][] = [[1, 'x'], [3, '3 log records rejected: timestamp outside the accepted window'], [2 ** 40 + 3, ''], [0, 'warning only'], [200, 'é'.repeat(100)]]
  for (const [n, message] of cases) {
    const decoded = Response.toObject(Response.decode(encodeExportLogsResponse(n, message)), { longs: String, defaults: true }) as { partialSuccess: unknown }
    t.same(decoded.partialSuccess, { rejectedLogRecords: String(n), errorMessage: message }, `${n} ${message.slice(0, 10)}`)
  }
  t.same(exportLogsResponseJson(0, ''), {})
  t.same(exportLogsResponseJson(3, 'why'), { partialSuccess: { rejectedLogRecords: '3', errorMessage: 'why' } })
})
