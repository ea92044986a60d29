// Which error contract a route speaks: the cloud's {detail:[...]} or the
// desktop's {error:{message}}.
import type { FastifyRequest } from 'fastify'

export const CONTRACTS = { cloud: 'cloud', desktop: 'desktop' } as const
export type Contract = (typeof CONTRACTS)[keyof typeof CONTRACTS]

export function contractOf(req: FastifyRequest): Contract {
  const c = req.routeOptions?.config?.auth?.contract
  if (c !== undefined) return c
  const url = req.url
  return url.startsWith('/v1/workspaces') || url === '/v1/me' || url.startsWith('/v1/health') ? 'cloud' : 'desktop'
}
