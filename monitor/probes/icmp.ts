// ICMP echo through the system ping (Debian iputils-ping), never a native
// addon. When ping cannot run here (missing binary, no raw-socket permission)
// the observation is unknown with LOOKOUT_PROBE_ICMP_UNAVAILABLE: never a false down.
import { execFile } from 'node:child_process'
import { HOST } from '../config-parts.ts'
import { PROBE_REASONS } from '../errors.ts'
import { declareKind, probeAnywhere, type IcmpOptions } from './kind.ts'
import { elapsed, outcome, type Outcome, type ProbeTarget, type Runner } from './outcome.ts'

const SUMMARY_RE = /(\d+) packets transmitted, (\d+) received/
const RTT_RE = /= ([\d.]+)\/([\d.]+)\/([\d.]+)\/([\d.]+) ms/
const UNAVAILABLE_RE = /operation not permitted|permission denied|socket:|cap_net_raw|not supported/i
const DNS_RE = /name or service not known|temporary failure in name resolution|no address associated|unknown host/i

export interface IcmpConfig { host: string; count: number; max_loss_percent: number; max_rtt_ms?: number }

interface ExecResult {
  code: number | string | null
  stdout: string
  stderr: string
}

function run(file: string, args: string[], timeoutMs: number): Promise<ExecResult> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' } },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : ((err as { code?: number | string }).code ?? null)
        resolve({ code, stdout: String(stdout), stderr: String(stderr) })
      })
  })
}

export class IcmpRunner implements Runner {
  readonly #ping: string

  constructor(opts: IcmpOptions = {}) {
    this.#ping = opts.pingPath ?? 'ping'
  }

  async run(target: ProbeTarget): Promise<Outcome> {
    const c = target.config as unknown as IcmpConfig
    const deadlineSec = Math.max(1, Math.ceil(target.timeoutMs / 1000))
    const waitSec = Math.max(0.2, Math.min(deadlineSec, target.timeoutMs / 1000 / c.count))
    const args = ['-n', '-q', '-c', String(c.count), '-i', '0.2', '-W', waitSec.toFixed(1), '-w', String(deadlineSec), '--', c.host]
    const start = performance.now()
    const r = await run(this.#ping, args, deadlineSec * 1000 + 2000)
    const ms = elapsed(start)
    if (r.code === 'ENOENT' || r.code === 'EACCES') {
      return outcome('unknown', PROBE_REASONS.icmpUnavailable, `ICMP unavailable: ${this.#ping} cannot be run (${r.code})`, null)
    }
    const summary = SUMMARY_RE.exec(r.stdout)
    if (summary === null) {
      const text = (r.stderr || r.stdout).trim().split('\n')[0]?.slice(0, 200) ?? ''
      if (DNS_RE.test(text)) return outcome('down', PROBE_REASONS.dns, `host not found: ${text}`, ms)
      if (UNAVAILABLE_RE.test(text) || r.code === 2 || typeof r.code === 'string') {
        return outcome('unknown', PROBE_REASONS.icmpUnavailable, `ICMP unavailable: ${text || `ping exited with ${String(r.code)}`}`, null)
      }
      return outcome('unknown', PROBE_REASONS.icmpUnavailable, `ICMP unavailable: unreadable ping output (exit ${String(r.code)})`, null)
    }
    const sent = Number(summary[1])
    const received = Number(summary[2])
    const loss = sent === 0 ? 100 : Math.round(((sent - received) / sent) * 1000) / 10
    const rtt = RTT_RE.exec(r.stdout)
    const details: Record<string, unknown> = {
      sent, received, loss_percent: loss,
      rtt_min_ms: rtt === null ? null : Number(rtt[1]),
      rtt_avg_ms: rtt === null ? null : Number(rtt[2]),
      rtt_max_ms: rtt === null ? null : Number(rtt[3]),
    }
    const avg = rtt === null ? null : Number(rtt[2])
    if (received === 0 || loss > c.max_loss_percent) {
      return outcome('down', PROBE_REASONS.loss, `${loss}% packet loss (${received}/${sent} replies)`, avg, details)
    }
    if (c.max_rtt_ms !== undefined && avg !== null && avg > c.max_rtt_ms) {
      return outcome('down', PROBE_REASONS.rtt, `average round trip ${avg} ms is above ${c.max_rtt_ms} ms`, avg, details)
    }
    return outcome('up', PROBE_REASONS.ok, `${received}/${sent} replies, average ${avg ?? '?'} ms`, avg, details)
  }
}

export const ICMP_KIND = declareKind({
  name: 'icmp',
  spec: probeAnywhere(16),
  properties: {
    host: HOST,
    count: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
    max_loss_percent: { type: 'number', minimum: 0, maximum: 100, default: 50 },
    max_rtt_ms: { type: 'number', exclusiveMinimum: 0, maximum: 600_000 },
  },
  required: ['host'],
  runner: (d) => new IcmpRunner(d.icmp),
})
