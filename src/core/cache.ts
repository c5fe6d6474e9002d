// A bounded map that forgets what was least recently used first: the one bounded cache of the
// isolate, for the SigV4 signing keys (./sigv4/crypto.ts), the presigners a batch builds
// (./s3/presign-cache.ts) and the control plane's caches (src/control/plane.ts), each an instance
// of its own size. An approximation of LRU that costs a hit nothing but a flag (second chance, or
// CLOCK):
// reordering a Map on every hit (delete, then set) cost about as much as the rest of a cached
// lookup. When full, the oldest entry goes, unless it was used since it was last looked at: then
// it moves to the back with its mark cleared and the next oldest is looked at.

interface Slot<V> {
  value: V
  used: boolean
}

export class BoundedCache<K, V> {
  private readonly slots = new Map<K, Slot<V>>()

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.slots.size
  }

  get(key: K): V | undefined {
    const slot = this.slots.get(key)
    if (slot === undefined) return undefined
    slot.used = true
    return slot.value
  }

  set(key: K, value: V): void {
    const slot = this.slots.get(key)
    if (slot !== undefined) {
      slot.value = value
      slot.used = true
      return
    }
    if (this.slots.size >= this.capacity) this.evict()
    this.slots.set(key, { value, used: false })
  }

  delete(key: K): void {
    this.slots.delete(key)
  }

  clear(): void {
    this.slots.clear()
  }

  /** Forgets one entry. Each entry moves at most once, so this ends within `capacity` steps. */
  private evict(): void {
    for (const [key, slot] of this.slots) {
      this.slots.delete(key)
      if (!slot.used) return
      slot.used = false
      this.slots.set(key, slot)
    }
  }
}
