// The collector's durable, bounded buffer of observations not yet accepted by
// the API. An append-only file of JSON lines (synced before a push can take
// them) plus a small file with the byte offset acknowledged so far; sending is
// oldest first. Bounds: at most maxRecords observations and maxBytes, none
// older than maxAgeMs (the API refuses older ones anyway); past a bound the
// oldest are dropped and counted. A crash can at worst resend acknowledged
// observations, which the API answers as duplicates (observation ids).
import { mkdirSync, readFileSync, renameSync, writeFileSync, openSync, closeSync, fsyncSync, ftruncateSync } from 'node:fs'
import { open, rename, writeFile, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'

export interface BufferLimits {
  /** Default 100,000 observations (1,000 checks at a 60 s interval: 100 minutes offline). */
  maxRecords?: number
  /** Default 64 MiB of JSON lines. */
  maxBytes?: number
  /** Default 24 h. */
  maxAgeMs?: number
  /** Rewrite the log once this much of it is acknowledged. Default 4 MiB. */
  compactBytes?: number
}

export interface Buffered<T> {
  value: T
  bytes: number
  at: number
}

const LOG = 'observations.jsonl'
const SENT = 'observations.sent'

export class ObservationBuffer<T extends { observed_at: string }> {
  readonly #dir: string
  readonly #maxRecords: number
  readonly #maxBytes: number
  readonly #maxAgeMs: number
  readonly #compactBytes: number
  #items: Buffered<T>[] = []
  #head = 0
  #bytes = 0
  /** Bytes of the log file before the first unacknowledged line. */
  #sent = 0
  #fh: FileHandle | null = null
  #dropped = 0
  #chain: Promise<void> = Promise.resolve()

  constructor(dir: string, limits: BufferLimits = {}) {
    this.#dir = dir
    this.#maxRecords = limits.maxRecords ?? 100_000
    this.#maxBytes = limits.maxBytes ?? 64 * 1024 * 1024
    this.#maxAgeMs = limits.maxAgeMs ?? 24 * 3_600_000
    this.#compactBytes = limits.compactBytes ?? 4 * 1024 * 1024
  }

  get length(): number {
    return this.#items.length - this.#head
  }

  /** Observations dropped because a bound was reached (oldest first), since start. */
  get dropped(): number {
    return this.#dropped
  }

  /** Reads what a previous run left (a torn last line from a crash is cut off). */
  async open(now: number): Promise<void> {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 })
    const log = join(this.#dir, LOG)
    let sent = 0
    try {
      sent = Number(readFileSync(join(this.#dir, SENT), 'utf8').trim()) || 0
    } catch {
      // first run
    }
    let data = Buffer.alloc(0)
    try {
      data = readFileSync(log)
    } catch {
      // first run
    }
    if (sent > data.length) sent = 0
    const end = data.lastIndexOf(0x0a) + 1
    if (end < data.length) {
      // A line cut short by a crash: it was never acknowledged to anyone, cut it off.
      const fd = openSync(log, 'r+')
      ftruncateSync(fd, end)
      fsyncSync(fd)
      closeSync(fd)
    }
    let pos = sent
    while (pos < end) {
      const nl = data.indexOf(0x0a, pos)
      const line = data.subarray(pos, nl + 1)
      pos = nl + 1
      try {
        const value = JSON.parse(line.toString('utf8')) as T
        this.#items.push({ value, bytes: line.length, at: Date.parse(value.observed_at) })
        this.#bytes += line.length
      } catch {
        this.#items.push({ value: null as unknown as T, bytes: line.length, at: 0 })
      }
    }
    this.#sent = sent
    this.#fh = await open(log, 'a', 0o600)
    // Unreadable lines and observations past the age bound go first.
    await this.#trim(now, true)
  }

  /** Appends and syncs; the returned promise resolves once the observations are on disk. */
  append(values: readonly T[], now: number): Promise<void> {
    const run = this.#chain.then(async () => {
      if (values.length === 0 || this.#fh === null) return
      const lines = values.map((v) => JSON.stringify(v) + '\n')
      const buf = Buffer.from(lines.join(''))
      await this.#fh.write(buf)
      await this.#fh.datasync()
      for (let i = 0; i < values.length; i++) {
        const bytes = Buffer.byteLength(lines[i] as string)
        this.#items.push({ value: values[i] as T, bytes, at: Date.parse((values[i] as T).observed_at) })
        this.#bytes += bytes
      }
      await this.#trim(now, false)
    })
    this.#chain = run.catch(() => undefined)
    return run
  }

  /** The oldest `n` observations (not removed until acknowledged). */
  peek(n: number): T[] {
    const out: T[] = []
    for (let i = this.#head; i < this.#items.length && out.length < n; i++) out.push((this.#items[i] as Buffered<T>).value)
    return out
  }

  /** The API has the oldest `n`: forget them. */
  ack(n: number): Promise<void> {
    const run = this.#chain.then(() => this.#advance(Math.min(n, this.length)))
    this.#chain = run.catch(() => undefined)
    return run
  }

  async close(): Promise<void> {
    await this.#chain
    await this.#fh?.close()
    this.#fh = null
  }

  async #trim(now: number, unreadable: boolean): Promise<void> {
    let drop = 0
    let dropBytes = 0
    for (let i = this.#head; i < this.#items.length; i++) {
      const it = this.#items[i] as Buffered<T>
      const over = this.length - drop > this.#maxRecords || this.#bytes - dropBytes > this.#maxBytes
      const old = now - it.at > this.#maxAgeMs
      const bad = unreadable && it.value === null
      if (!over && !old && !bad) break
      drop++
      dropBytes += it.bytes
    }
    if (drop > 0) {
      this.#dropped += drop
      await this.#advance(drop)
    }
  }

  async #advance(n: number): Promise<void> {
    if (n <= 0) return
    for (let i = 0; i < n; i++) {
      const it = this.#items[this.#head++] as Buffered<T>
      this.#sent += it.bytes
      this.#bytes -= it.bytes
    }
    if (this.#head > 4096 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head)
      this.#head = 0
    }
    if (this.#sent >= this.#compactBytes && this.#sent > this.#bytes) await this.#compact()
    else await this.#writeSent(this.#sent)
  }

  async #writeSent(offset: number): Promise<void> {
    const tmp = join(this.#dir, `${SENT}.tmp`)
    await writeFile(tmp, String(offset), { mode: 0o600 })
    await rename(tmp, join(this.#dir, SENT))
  }

  /** Rewrites the log with only what is unacknowledged. Offset 0 is written first: a crash in between resends, never loses. */
  async #compact(): Promise<void> {
    const log = join(this.#dir, LOG)
    const tmp = `${log}.tmp`
    const rest = this.#items.slice(this.#head).map((it) => JSON.stringify(it.value) + '\n').join('')
    writeFileSync(tmp, rest, { mode: 0o600 })
    const fd = openSync(tmp, 'r')
    fsyncSync(fd)
    closeSync(fd)
    await this.#fh?.close()
    await this.#writeSent(0)
    renameSync(tmp, log)
    this.#sent = 0
    this.#fh = await open(log, 'a', 0o600)
  }
}
