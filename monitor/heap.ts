// A binary min-heap keyed by due time: one scheduler for every check, not a
// timer each. Items remember their index so they can move or leave in O(log n).

export interface HeapItem {
  due: number
  heapIndex: number
}

export class MinHeap<T extends HeapItem> {
  readonly #a: T[] = []

  get size(): number {
    return this.#a.length
  }

  peek(): T | undefined {
    return this.#a[0]
  }

  push(item: T): void {
    item.heapIndex = this.#a.length
    this.#a.push(item)
    this.#up(item.heapIndex)
  }

  pop(): T | undefined {
    const top = this.#a[0]
    if (top !== undefined) this.remove(top)
    return top
  }

  has(item: T): boolean {
    return item.heapIndex >= 0 && this.#a[item.heapIndex] === item
  }

  remove(item: T): void {
    if (!this.has(item)) return
    const i = item.heapIndex
    const last = this.#a.pop() as T
    item.heapIndex = -1
    if (last === item) return
    this.#a[i] = last
    last.heapIndex = i
    this.#down(i)
    this.#up(last.heapIndex)
  }

  /** Sets a new due time (pushes the item if it is not in the heap). */
  schedule(item: T, due: number): void {
    if (!this.has(item)) {
      item.due = due
      this.push(item)
      return
    }
    const earlier = due < item.due
    item.due = due
    if (earlier) this.#up(item.heapIndex)
    else this.#down(item.heapIndex)
  }

  #swap(i: number, j: number): void {
    const a = this.#a[i] as T
    const b = this.#a[j] as T
    this.#a[i] = b
    this.#a[j] = a
    a.heapIndex = j
    b.heapIndex = i
  }

  #up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1
      if ((this.#a[p] as T).due <= (this.#a[i] as T).due) return
      this.#swap(i, p)
      i = p
    }
  }

  #down(i: number): void {
    const n = this.#a.length
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < n && (this.#a[l] as T).due < (this.#a[m] as T).due) m = l
      if (r < n && (this.#a[r] as T).due < (this.#a[m] as T).due) m = r
      if (m === i) return
      this.#swap(i, m)
      i = m
    }
  }
}
