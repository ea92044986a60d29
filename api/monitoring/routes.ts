// The monitoring route group: cloud routes under the resource, desktop routes
// under /v1/monitoring and /v1/heartbeat (see monitor/README.md), and the
// collector routes under /v1/collector.
import type { FastifyInstance } from 'fastify'
import { cloudMonitoringRoutes, type MonitoringRoutesOptions } from './cloud-routes.ts'
import { desktopMonitoringRoutes } from './desktop-routes.ts'
import { collectorRoutes } from './collector-routes.ts'
import { monitoringExtensionRoutes } from './extension-routes.ts'
import { overviewRoutes } from './overview-routes.ts'

export type { MonitoringRoutesOptions } from './cloud-routes.ts'

export async function monitoringRoutes(app: FastifyInstance, opts: MonitoringRoutesOptions): Promise<void> {
  await cloudMonitoringRoutes(app, opts)
  await desktopMonitoringRoutes(app, opts)
  await collectorRoutes(app, opts)
  await monitoringExtensionRoutes(app, opts)
  await overviewRoutes(app, opts)
}
