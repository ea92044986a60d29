// Documentation-only request bodies of the ingest routes. Their bodies stay raw
// bytes in the API thread and are decoded and validated by the worker pool
// against these same schemas (ingest/decode/schemas.ts); a Fastify body schema
// would parse them on the event loop instead.
import { BATCH_SCHEMA, LEGACY_BATCH_SCHEMA, LIMITS } from '../../ingest/index.ts'
import type { RouteDocs } from './transform.ts'

const GZIP_NOTE = 'Content-Encoding: gzip is accepted; the compressed and the decompressed size are capped separately.'
const IDENTITY_NOTE = 'A retry is not a repeat: records without a sender time take the receive time and are new events when sent again; records that all carry sender times are the same events when the same bytes come again within the duplicate window (10 minutes). An Idempotency-Key header (1-255 printable ASCII characters, a Lookout extension) makes the request exactly once within that window, with or without times; the same key with another body is 409. Too busy: 429 with Retry-After (never 500).'

export const BATCH_DOCS: RouteDocs = {
  body: {
    description: `A batch of 1..${LIMITS.batchEvents} log events, validated whole: one bad event refuses the batch. ${GZIP_NOTE} ${IDENTITY_NOTE}`,
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
    description: `An OTLP/HTTP ExportLogsServiceRequest (opentelemetry/proto/collector/logs/v1), as protobuf or as OTLP JSON. Only logs. ${GZIP_NOTE} ${IDENTITY_NOTE}`,
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
