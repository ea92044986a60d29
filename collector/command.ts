// `lookout collector --url URL --token TOKEN [--data-dir DIR]`.
import { parseArgs } from 'node:util'
import { resolve } from 'node:path'
import { Collector } from './agent.ts'
import { CollectorUsageError } from './errors.ts'

export const COLLECTOR_USAGE = `lookout collector --url URL [--token TOKEN] [--data-dir DIR] [--secrets-dir DIR]... [--poll-seconds N]
  Runs the checks assigned to one enrolled collector source and reports them to the Lookout API at URL
  (outbound HTTP(S) only). The token (shown once when the source was enrolled) may instead come from
  LOOKOUT_COLLECTOR_TOKEN, which keeps it out of the process list. DIR (default ./lookout-collector)
  keeps the offline buffer and the last check list; credential references of the checks are read here:
  {"env": "LOOKOUT_SECRET_..."} from this process's environment, {"file": ...} under DIR/secrets or a --secrets-dir.`

export async function collectorCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' }, token: { type: 'string' }, 'data-dir': { type: 'string' }, 'secrets-dir': { type: 'string', multiple: true },
      'poll-seconds': { type: 'string' }, help: { type: 'boolean' },
    },
  })
  if (values.help === true) {
    process.stdout.write(COLLECTOR_USAGE + '\n')
    return 0
  }
  const token = values.token ?? process.env.LOOKOUT_COLLECTOR_TOKEN
  if (values.url === undefined || token === undefined || token === '') throw new CollectorUsageError(`--url and a token are required\n\n${COLLECTOR_USAGE}`)
  let url: URL
  try {
    url = new URL(values.url)
  } catch {
    throw new CollectorUsageError(`--url must be an http:// or https:// URL\n\n${COLLECTOR_USAGE}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CollectorUsageError('--url must be an http:// or https:// URL')
  const poll = values['poll-seconds'] === undefined ? 20 : Number(values['poll-seconds'])
  if (!Number.isInteger(poll) || poll < 1 || poll > 20) throw new CollectorUsageError('--poll-seconds takes 1..20')
  const dataDir = resolve(values['data-dir'] ?? 'lookout-collector')
  const collector = new Collector({
    url: url.toString(), token, dataDir, pollSeconds: poll,
    secretsDirs: [resolve(dataDir, 'secrets'), ...(values['secrets-dir'] ?? []).map((d) => resolve(d))],
  })
  await collector.start()
  process.stderr.write(`collector: started (data: ${dataDir}, API: ${url.origin})\n`)
  const signalled = new Promise<number>((done) => {
    const stop = (signal: string) => {
      process.stderr.write(`collector: ${signal}, stopping\n`)
      collector.stop().then(() => done(0), () => done(1))
    }
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
  })
  return Promise.race([signalled, collector.finished])
}
