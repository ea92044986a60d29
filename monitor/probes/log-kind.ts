// The `log` kind's declaration (a Lookout extension: a count of matching log lines over a
// window, against a threshold). Its own file, beside the runner (log.ts) and the
// configuration's terms (log-config.ts), so neither has to know the registry.
import { issue } from '../config-parts.ts'
import { LOG_PROPERTIES, logConfigProblems, type LogConfig } from '../log-config.ts'
import { declareKind } from './kind.ts'
import { LogRunner } from './log.ts'

export const LOG_KIND = declareKind({
  name: 'log',
  // Count queries on the log store: a resource's checks are due together and StoreLogSource
  // (deploy/roles/log-source.ts) counts them in one statement over that resource's rows, one
  // statement at a time, so the store sees one statement however many evaluations wait.
  spec: {
    concurrency: 200, phaseBy: 'resource', locations: ['public', 'neura'],
    refusal: 'a log check reads this service\'s log store: a collector cannot run it (use public)',
  },
  properties: LOG_PROPERTIES,
  required: ['threshold'],
  check: (c) => logConfigProblems(c as unknown as LogConfig).map(([path, msg]) => issue(path, msg, c[path.slice(1)])),
  runner: (d) => new LogRunner(d.logs ?? null),
})
