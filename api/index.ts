// Public surface of the api stage (the HTTP edge): the Fastify app and the
// plugins deploy composes, and its codes.
export { APP_DEFAULTS, buildApp, LISTEN_BACKLOG, registeredRoutes } from './app.ts'
export type { AppOptions } from './app.ts'

export { API_ERROR_CODES } from './errors.ts'
export { readinessChecks } from './readiness.ts'
export { ServiceGate } from './edge/service-gate.ts'
