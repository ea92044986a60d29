// Documentation-only request bodies of the ingest routes. Their bodies stay raw
// bytes in the API thread and are decoded and validated by the worker pool
// against these same schemas (ingest/decode/schemas.ts); a Fastify body schema
// would parse them on the event loop instead.
import { BATCH_SCHEMA, LEGACY_BATCH_SCHEMA, LIMITS } from '../../ingest/index.ts'
import type { RouteDocs } from './transform.ts'

const GZIP_NOTE = 'Content-Encoding: gzip is accepted; the compressed and the decompressed size are capped separately.'

export const BATCH_DOCS: RouteDocs = {
  body: {
    description: `A batch of 1..${LIMITS.batchEvents} log events, validated whole: one bad event refuses the batch. ${GZIP_NOTE}`,
    content: { 'application/json': { schema: BATCH_SCHEMA } },
  },
}

export const LEGACY_DOCS: RouteDocs = {
  body: {
    description: `The legacy desktop batch: at most ${LIMITS.legacyEvents} events and 1 MiB, each event at most ${LIMITS.legacyEventBytes} encoded bytes; event ids are deduplicated per resource. ${GZIP_NOTE}`,
    content: {
      'application/json': {
        schema: {
          ...LEGACY_BATCH_SCHEMA,
          properties: {
            ...LEGACY_BATCH_SCHEMA.properties,
            events: { ...LEGACY_BATCH_SCHEMA.properties.events, maxItems: LIMITS.legacyEvents },
          },
        },
      },
    },
  },
}

export const OTLP_DOCS: RouteDocs = {
  body: {
    description: `An OTLP/HTTP ExportLogsServiceRequest (opentelemetry/proto/collector/logs/v1), as protobuf or as OTLP JSON. Only logs. ${GZIP_NOTE}`,
    content: {
      'application/x-protobuf': { schema: { type: 'string', contentMediaType: 'application/x-protobuf', description: 'ExportLogsServiceRequest, binary protobuf encoding' } },
      'application/json': {
        schema: {
          type: 'object',
          description: 'ExportLogsServiceRequest in the OTLP JSON encoding (lowerCamelCase fields, hex trace and span ids)',
          properties: { resourceLogs: { type: 'array', items: { type: 'object' } } },
        },
      },
    },
  },
}
