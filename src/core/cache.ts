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

interface Slot<K, V> {
  /** Undefined once deleted, until the hand takes the slot again. */
  key: K | undefined
  value: V | undefined
  used: boolean
}

export class BoundedCache<K, V> {
  /** Each key's slot. */
  private readonly slots = new Map<K, Slot<K, V>>()
  /** The slots in the order the hand visits them. */
  private readonly ring: Slot<K, V>[] = []
  private hand = 0

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
    let slot = this.slots.get(key)
    if (slot !== undefined) {
      slot.value = value
      slot.used = true
      return
    }
    if (this.ring.length < this.capacity) this.ring.push((slot = { key, value, used: false }))
    else {
      slot = this.evict()
      slot.key = key
      slot.value = value
    }
    this.slots.set(key, slot)
  }

  /** Forgets `key` (rare: a failed derivation): its slot stays empty until the hand takes it. */
  delete(key: K): void {
    const slot = this.slots.get(key)
    if (slot === undefined) return
    this.slots.delete(key)
    slot.key = slot.value = undefined
    slot.used = false
  }

  clear(): void {
    this.slots.clear()
    this.ring.length = 0
    this.hand = 0
  }

  /**
   * The slot the hand stops at (an emptied one, or the first not used since the hand last passed),
   * its key forgotten. Each flag is cleared at most once a turn, so this ends within `capacity` + 1
   * steps.
   */
  private evict(): Slot<K, V> {
    for (;;) {
      const slot = this.ring[this.hand]!
      this.hand = (this.hand + 1) % this.capacity
      if (!slot.used) {
        if (slot.key !== undefined) this.slots.delete(slot.key)
        return slot
      }
      slot.used = false
    }
  }
}

/**
 * `compute` with its last answer kept: a value asked again and again (an upload time, a signing
 * second) is computed once until another is asked. A throw keeps nothing.
 */
export function keepLast<A, R>(compute: (arg: A) => R): (arg: A) => R {
  let last: unknown = keepLast
  let answer: R
  return (arg) => {
    if (arg !== last) {
      answer = compute(arg)
      last = arg
    }
    return answer
  }
}
