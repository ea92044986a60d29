// The console's check form offers, for each kind, a template and fields laid out
// over the configuration (console/src/components/check-fields.ts): every template
// must be accepted as it is by the API's own validator, every field must name a
// key the kind's schema knows, and a form value that is not a number must reach
// the API as typed, so the API reports it with the other problems.
import t from 'tap'
import { ALL_KINDS, parseConfig, type Kind } from '../../monitor/internal.ts'
import { CONFIG_SCHEMAS } from '../../monitor/config.ts'
import { FIELDS, KINDS, TEMPLATES, configOf, fieldOfLoc, valuesOf } from '../../console/src/components/check-fields.ts'

t.test('the form knows every kind the API has, and each template is accepted', async (t) => {
  for (const k of ALL_KINDS) t.ok(KINDS.includes(k), `the form offers ${k}`)
  for (const kind of KINDS) {
    if (!(ALL_KINDS as readonly string[]).includes(kind)) {
      t.fail(`the form offers ${kind}, which the API does not have`)
      continue
    }
    const r = parseConfig(kind as Kind, configOf(kind, TEMPLATES[kind] ?? {}))
    t.ok(r.ok, `${kind} template accepted: ${r.ok ? '' : JSON.stringify(r.issues)}`)
  }
})

t.test('every field names a key of its kind\'s schema', async (t) => {
  for (const [kind, fields] of Object.entries(FIELDS)) {
    const schema = CONFIG_SCHEMAS[kind as Kind] as { properties?: Record<string, { properties?: Record<string, unknown> }> } | undefined
    for (const f of fields) {
      const [top, sub] = f.key.split('.')
      const prop = schema?.properties?.[top as string]
      t.ok(prop !== undefined && (sub === undefined || prop.properties?.[sub] !== undefined), `${kind}.${f.key}`)
    }
  }
})

t.test('values round-trip; empty leaves the default to the API; a bad number goes as typed', async (t) => {
  const stored = { url: 'https://a.example/h', method: 'HEAD', headers: { 'x-a': '1' }, status_min: 200, follow_redirects: true, tls_verify: false, interval_seconds: 30 }
  const v = valuesOf('https', stored)
  t.same(configOf('https', v, stored), stored, 'keys the form does not show (headers) are kept')
  const c = configOf('tcp', { host: ' db ', port: 'abc', interval_seconds: '' })
  t.same(c, { host: 'db', port: 'abc' })
  const r = parseConfig('tcp', c)
  t.notOk(r.ok)
  t.ok(!r.ok && r.issues.some((i) => i.instancePath === '/port'), 'the API names the port')
  t.equal(fieldOfLoc(['body', 'configuration', 'query', 'q']), 'query.q')
  t.equal(fieldOfLoc(['body', 'name']), 'name')
  t.equal(fieldOfLoc(['body', 'configuration']), null)
})
