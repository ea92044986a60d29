// The desktop service's optional HTTP listener: the same API as the socket
// minus the owner, built with the loopback edge (desktop/loopback.ts) and
// bound to 127.0.0.1 only; the port is the only thing settings choose.
import { buildApp, LISTEN_BACKLOG, registeredRoutes, type AppOptions } from '../api/index.ts'
import { type LoopbackHandle } from '../desktop/index.ts'
import { drainingClose } from './close-draining.ts'

export const LOOPBACK_HOST = '127.0.0.1'

export async function openLoopback(base: AppOptions, port: number): Promise<LoopbackHandle> {
  // The desktop OTLP contract on the shared OTLP path; no /metrics route (it has its own token).
  const app = await buildApp({ ...base, loopback: true, otlpContract: 'desktop', metricsToken: undefined, desktop: base.desktop })
  const close = drainingClose(app)
  let url: string
  try {
    url = await app.listen({ host: LOOPBACK_HOST, port, backlog: LISTEN_BACKLOG })
  } catch (err) {
    await app.close()
    throw err
  }
  return { url, port, routes: registeredRoutes(app), close }
}
