// Setup calls (registering resources, probing the query route) go to a server
// that may have just started and may shed load with 503 + Retry-After: a good
// client waits as told and tries again rather than failing the whole run. Only
// the shedding answers are retried (under-pressure refuses before any handler
// runs, so a retried POST was never applied); the measured traffic is not.
import { Agent, RetryAgent, type Dispatcher } from 'undici'

export function setupDispatcher(): Dispatcher {
  return new RetryAgent(new Agent(), {
    maxRetries: 30,
    minTimeout: 250,
    maxTimeout: 5_000,
    retryAfter: true,
    methods: ['GET', 'POST'],
    statusCodes: [429, 503],
    errorCodes: [],
    // Past the last retry the caller sees the final answer, status and body, as without retries.
    throwOnError: false,
  })
}
