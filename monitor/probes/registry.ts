// Every probe kind, once. A new kind is its probe file (the runner and its
// declareKind: spec, configuration, runner factory) and one line here; the kind
// tables (kinds.ts), the configuration check (config.ts), the runners of the
// monitor role and of the collector (index.ts) all read this list. The order is
// the kinds' order in the API's enums.
import { DATABASE_KINDS } from './database.ts'
import { HEARTBEAT_KIND } from './heartbeat.ts'
import { HTTPS_KIND } from './https.ts'
import { ICMP_KIND } from './icmp.ts'
import { LOG_KIND } from './log-kind.ts'
import { TCP_KIND } from './tcp.ts'

export const KIND_DECLARATIONS = [
  HTTPS_KIND,
  TCP_KIND,
  ICMP_KIND,
  ...DATABASE_KINDS,
  HEARTBEAT_KIND,
  LOG_KIND,
] as const

export type Kind = (typeof KIND_DECLARATIONS)[number]['name']
