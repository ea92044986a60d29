// The official OpenTelemetry JS SDK sends logs to the OTLP route (protobuf and
// JSON, with and without gzip); every record is then found in ClickHouse.
import t from 'tap'
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs'
import { OTLPLogExporter as ProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto'
import { OTLPLogExporter as JsonExporter } from '@opentelemetry/exporter-logs-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { SeverityNumber } from '@opentelemetry/api-logs'
import { startTestLookout } from '../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())

const variants = [
  { name: 'protobuf', Exporter: ProtoExporter, compression: 'none' },
  { name: 'protobuf+gzip', Exporter: ProtoExporter, compression: 'gzip' },
  { name: 'json', Exporter: JsonExporter, compression: 'none' },
  { name: 'json+gzip', Exporter: JsonExporter, compression: 'gzip' },
] as const

for (const v of variants) {
  t.test(`SDK exporter over ${v.name}`, async (t) => {
    const rid = await lk.resource(`otlp-${v.name}`)
    const exporter = new v.Exporter({
      url: `${lk.url}/v1/workspaces/${lk.workspaceId}/resources/${rid}/otlp/v1/logs`,
      headers: { Authorization: `Bearer ${lk.token}` },
      compression: v.compression as never,
    })
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'checkout', 'deployment.environment': 'prod' }),
      processors: [new SimpleLogRecordProcessor({ exporter } as never)],
    })
    const logger = provider.getLogger('test-scope', '1.2.3')
    const n = 25
    for (let i = 0; i < n; i++) {
      logger.emit({
        severityNumber: i % 2 === 0 ? SeverityNumber.ERROR : SeverityNumber.INFO,
        severityText: i % 2 === 0 ? 'ERROR' : 'INFO',
        body: `order ${i} failed: card declined`,
        attributes: { 'order.id': i, 'http.route': '/pay', retry: i % 3 === 0, nested: { k: 'v' } },
        timestamp: Date.now() - i,
      })
    }
    await provider.forceFlush()
    await provider.shutdown()
    const rows = await lk.waitRows(rid, n)
    t.equal(rows.length, n, 'every record stored once')
    const r0 = rows.find((r) => r.message === 'order 0 failed: card declined') as Record<string, any>
    t.ok(r0, 'record found by its body')
    t.equal(r0.severity_number, 17)
    t.equal(r0.severity_text, 'ERROR')
    t.equal(r0.source, 'checkout', 'source from service.name')
    t.equal(r0.scope_name, 'test-scope')
    t.equal(r0.scope_version, '1.2.3')
    t.equal(r0.attributes['order.id'], '0')
    t.equal(r0.attributes['http.route'], '/pay')
    t.equal(r0.attributes.retry, 'true')
    t.equal(r0.attributes['nested.k'], 'v')
    t.equal(r0.resource_attributes['service.name'], 'checkout')
    t.equal(r0.resource_attributes['deployment.environment'], 'prod')
  })
}
