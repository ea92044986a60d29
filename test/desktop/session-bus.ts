// A private session D-Bus (dbus-run-session) with a notification server on it
// (notification-daemon.py, python3-dbus) that records every
// org.freedesktop.Notifications.Notify call: what a desktop's toasts reach.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { waitFor } from '../alerting/alerts/receivers.ts'

export interface NotifyCall {
  method: string
  app_name: string
  summary: string
  body: string
  hints: Record<string, string | number>
}

export interface SessionBus {
  /** DBUS_SESSION_BUS_ADDRESS of the bus. */
  address: string
  /** Every Notify call so far. */
  calls: NotifyCall[]
  /** Stops the notification server; dbus-run-session then stops its bus and exits. */
  stop(): Promise<void>
}

export async function startSessionBus(): Promise<SessionBus> {
  const session = spawn('dbus-run-session', ['--', '/usr/bin/python3', 'test/desktop/notification-daemon.py'], { stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise((resolve) => session.once('exit', resolve))
  const bus: SessionBus = {
    address: '',
    calls: [],
    async stop() {
      if (serverPid !== 0) process.kill(serverPid, 'SIGTERM')
      else session.kill('SIGTERM')
      await exited
    },
  }
  let serverPid = 0
  createInterface({ input: session.stdout }).on('line', (line) => {
    const msg = JSON.parse(line) as { address?: string; pid?: number } & NotifyCall
    if (msg.address !== undefined) {
      bus.address = msg.address
      serverPid = msg.pid ?? 0
    } else bus.calls.push(msg)
  })
  await waitFor(() => bus.address || undefined, 'the private session bus')
  return bus
}
