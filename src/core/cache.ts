// A bounded map that forgets what was least recently used first: the one bounded cache of the
// isolate, for the SigV4 signing keys (./sigv4/crypto.ts), the presigners a batch builds
// (./s3/presign-cache.ts), verified links and URLs (src/auth/links.ts, ./own/url.ts) and the
// control plane's caches (src/control/plane.ts), each an instance of its own size.
//
// An approximation of LRU that costs a hit nothing but a flag (second chance, or CLOCK): the
// entries sit in a ring of `capacity` slots, and when it is full a hand goes round it, clearing
// the flag of each entry used since the hand last passed and taking the first one that was not.
// Reordering a Map on every hit (delete, then set) cost about as much as the rest of a cached
// lookup; and a Map that forgets its oldest entry on every miss makes each forgetting walk past
// the entries forgotten before it (a Map keeps them in order until it compacts), so the ring's
// slots are reused in place and a miss costs the same however many came before it.

export class BoundedCache<K, V> {
  /** Each key's slot. */
  private readonly slots = new Map<K, number>()
  private readonly keys: (K | undefined)[] = []
  private readonly values: (V | undefined)[] = []
  private readonly used: Uint8Array
  /** Slots a `delete` emptied, taken before the hand takes one. */
  private free: number[] = []
  private hand = 0

  constructor(readonly capacity: number) {
    this.used = new Uint8Array(capacity)
  }

  get size(): number {
    return this.slots.size
  }

  get(key: K): V | undefined {
    const slot = this.slots.get(key)
    if (slot === undefined) return undefined
    this.used[slot] = 1
    return this.values[slot]
  }

  set(key: K, value: V): void {
    let slot = this.slots.get(key)
    if (slot !== undefined) {
      this.values[slot] = value
      this.used[slot] = 1
      return
    }
    slot = this.free.pop() ?? (this.keys.length < this.capacity ? this.keys.length : this.evict())
    this.keys[slot] = key
    this.values[slot] = value
    this.used[slot] = 0
    this.slots.set(key, slot)
  }

  delete(key: K): void {
    const slot = this.slots.get(key)
    if (slot === undefined) return
    this.slots.delete(key)
    this.keys[slot] = undefined
    this.values[slot] = undefined
    this.free.push(slot)
  }

  clear(): void {
    this.slots.clear()
    this.keys.length = 0
    this.values.length = 0
    this.used.fill(0)
    this.free = []
    this.hand = 0
  }

  /**
   * Empties the slot the hand stops at, and returns it: every slot is full (there is none free).
   * Each flag is cleared at most once a turn, so this ends within `capacity` + 1 steps.
   */
  private evict(): number {
    for (;;) {
      const slot = this.hand
      this.hand = slot + 1 === this.capacity ? 0 : slot + 1
      if (this.used[slot] === 0) {
        this.slots.delete(this.keys[slot] as K)
        return slot
      }
      this.used[slot] = 0
    }
  }
}
