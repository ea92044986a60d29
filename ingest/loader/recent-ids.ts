// The message ids a loader loaded lately. JetStream's delivery count is what
// tells a loader to look in ClickHouse before loading, and nats-server 2.9
// (Debian bookworm's) can hand a redelivered message out a second time with a
// count of 1 (nats-server#4460): a loader that remembers what it loaded looks
// before loading such a message again. A ring of ids with a set beside it:
// fixed memory, no allocation but the set's entry per id.
export class RecentIds {
  readonly #ring: string[]
  readonly #set = new Set<string>()
  #next = 0

  constructor(capacity: number) {
    this.#ring = new Array<string>(capacity).fill('')
  }

  has(id: string): boolean {
    return this.#set.has(id)
  }

  add(id: string): void {
    if (id === '' || this.#set.has(id)) return
    const old = this.#ring[this.#next] as string
    if (old !== '') this.#set.delete(old)
    this.#ring[this.#next] = id
    this.#set.add(id)
    this.#next = (this.#next + 1) % this.#ring.length
  }

  get size(): number {
    return this.#set.size
  }
}
