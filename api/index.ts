// Public surface of the api stage (the HTTP edge): the Fastify app and the
// plugins deploy composes, and its codes.
export { APP_DEFAULTS, buildApp, registeredRoutes } from './app.ts'
export type { AppOptions } from './app.ts'

export { API_ERROR_CODES } from './errors.ts'
export type { ApiErrorCode } from './errors.ts'
export { readinessChecks } from './readiness.ts'
export { ServiceGate } from './edge/service-gate.ts'
export { httpMetrics } from './metrics/http.ts'
export { healthRoutes } from './health.ts'
export { requestUsage } from './usage/plugin.ts'
export { auth } from './auth/plugin.ts'
