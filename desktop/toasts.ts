// Desktop toasts through the freedesktop notifications interface
// (org.freedesktop.Notifications.Notify) on the user's session D-Bus, sent by
// Debian's notify-send (libnotify-bin): no D-Bus client library is among the
// dependencies, and notify-send is the user session's own tool. The toaster
// (alerting/notifications/toaster.ts) has claimed each toast before it gets here,
// so a failure loses the toast, never the inbox entry. Without a session bus
// the inbox is the record and the status says so.
import { execFile } from 'node:child_process'
import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'
import { ToastNotShown, type Toast, type ToastSink } from '../alerting/index.ts'

export const NOTIFY_SEND = 'notify-send'
const TIMEOUT_MS = 10_000

export interface ToastStatus {
  /** 'dbus', or 'unavailable: <why>' (the inbox is then the only record). */
  delivery: string
  bus: string | null
  shown: number
  failed: number
  last_error: string | null
}

/** The session bus address: DBUS_SESSION_BUS_ADDRESS, else the user bus socket $XDG_RUNTIME_DIR/bus; null: none. */
export function sessionBus(env: NodeJS.ProcessEnv): string | null {
  const address = env.DBUS_SESSION_BUS_ADDRESS ?? ''
  if (address !== '') return address
  const runtime = env.XDG_RUNTIME_DIR ?? ''
  if (runtime === '') return null
  const socket = join(runtime, 'bus')
  try {
    return existsSync(socket) && statSync(socket).isSocket() ? `unix:path=${socket}` : null
  } catch {
    return null
  }
}

/** Whether the command can be run: an executable on PATH (or the path itself). */
function installed(command: string, env: NodeJS.ProcessEnv): boolean {
  const candidates = isAbsolute(command) ? [command] : (env.PATH ?? '').split(delimiter).filter((d) => d !== '').map((d) => join(d, command))
  return candidates.some((c) => {
    try {
      accessSync(c, constants.X_OK)
      return statSync(c).isFile()
    } catch {
      return false
    }
  })
}

const URGENCY: Record<string, string> = { critical: 'critical', error: 'critical', warning: 'normal', info: 'low', debug: 'low' }

/** Notification servers may read a body as simple markup: show it as text. */
function plain(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

export class DbusToasts {
  readonly #env: NodeJS.ProcessEnv
  readonly #command: string
  #shown = 0
  #failed = 0
  #lastError: string | null = null

  constructor(env: NodeJS.ProcessEnv, command = NOTIFY_SEND) {
    this.#env = env
    this.#command = command
  }

  status(): ToastStatus {
    const bus = sessionBus(this.#env)
    return {
      delivery: bus === null ? 'unavailable: no session bus'
        : installed(this.#command, this.#env) ? 'dbus' : `unavailable: ${this.#command} is not installed (Debian: libnotify-bin)`,
      bus, shown: this.#shown, failed: this.#failed, last_error: this.#lastError,
    }
  }

  readonly sink: ToastSink = async (toast: Toast) => {
    const bus = sessionBus(this.#env)
    if (bus === null) throw new ToastNotShown('unavailable', 'no session bus: the toast is in the inbox only')
    if (!installed(this.#command, this.#env)) throw new ToastNotShown('unavailable', `${this.#command} is not installed: the toast is in the inbox only`)
    const args = [
      '--app-name=Lookout',
      `--urgency=${URGENCY[toast.severity] ?? 'normal'}`,
      '--category=lookout.alert',
      `--hint=string:x-lookout-notification-id:${toast.id}`,
      '--', toast.title, plain(toast.body),
    ]
    try {
      await new Promise<void>((resolve, reject) => {
        execFile(this.#command, args, { env: { ...this.#env, DBUS_SESSION_BUS_ADDRESS: bus }, timeout: TIMEOUT_MS }, (err, _out, stderr) => {
          if (err === null) resolve()
          else reject(new Error(`${this.#command}: ${String(stderr).trim() || err.message}`))
        })
      })
      this.#shown++
      this.#lastError = null
    } catch (err) {
      this.#failed++
      this.#lastError = (err as Error).message
      throw err
    }
  }
}
