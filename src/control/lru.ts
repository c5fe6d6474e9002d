// A bounded map that forgets its least recently used entry first: the control plane's per-isolate
// caches. A Map keeps insertion order, so a hit moves its entry to the end and the first entry is
// always the least recently used.

export class Lru<K, V> {
  private readonly entries = new Map<K, V>()

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key)
    if (value !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, value)
    }
    return value
  }

  set(key: K, value: V): void {
    this.entries.delete(key)
    this.entries.set(key, value)
    if (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value as K)
    }
  }

  clear(): void {
    this.entries.clear()
  }
}
