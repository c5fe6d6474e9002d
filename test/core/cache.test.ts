import { describe, expect, it } from 'vitest'
import { BoundedCache, keepLast } from '../../src/core/cache'

/** Second chance as a queue (the Map this cache once was): the model the ring must agree with. */
class QueueModel {
  private readonly entries = new Map<number, { value: number; used: boolean }>()
  constructor(private readonly capacity: number) {}
  get(key: number) {
    const entry = this.entries.get(key)
    if (entry !== undefined) entry.used = true
    return entry?.value
  }
  set(key: number, value: number) {
    const entry = this.entries.get(key)
    if (entry !== undefined) {
      entry.value = value
      entry.used = true
      return
    }
    while (this.entries.size >= this.capacity) {
      const [oldest, slot] = this.entries.entries().next().value as [number, { used: boolean }]
      this.entries.delete(oldest)
      if (!slot.used) break
      slot.used = false
      this.entries.set(oldest, slot as { value: number; used: boolean })
    }
    this.entries.set(key, { value, used: false })
  }
}

/** A small deterministic generator (xorshift), so a failure names its seed. */
function random(seed: number) {
  let state = seed
  return (below: number) => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) % below
  }
}

describe('BoundedCache', () => {
  it('holds at most its capacity, forgetting the least recently used first', () => {
    const lru = new BoundedCache<string, number>(2)
    lru.set('a', 1)
    lru.set('b', 2)
    expect(lru.get('a')).toBe(1)
    lru.set('c', 3)
    expect(lru.size).toBe(2)
    expect(lru.get('b')).toBeUndefined()
    expect(lru.get('a')).toBe(1)
    expect(lru.get('c')).toBe(3)
    lru.clear()
    expect(lru.size).toBe(0)
    expect(lru.get('a')).toBeUndefined()
  })

  it('forgets exactly what second chance over a queue forgets', () => {
    for (const seed of [1, 2, 3, 42, 1234]) {
      for (const capacity of [1, 2, 3, 8, 64]) {
        const next = random(seed * 7919 + capacity)
        const cache = new BoundedCache<number, number>(capacity)
        const model = new QueueModel(capacity)
        for (let step = 0; step < 5_000; step++) {
          const key = next(capacity * 3)
          if (next(3) === 0) {
            cache.set(key, step)
            model.set(key, step)
          } else {
            expect(cache.get(key), `seed ${seed}, capacity ${capacity}, step ${step}`).toBe(
              model.get(key),
            )
          }
          expect(cache.size).toBeLessThanOrEqual(capacity)
        }
      }
    }
  })

  it('answers every key it holds with its last value, and none it deleted, however it is used', () => {
    const next = random(99)
    const capacity = 16
    const cache = new BoundedCache<number, number>(capacity)
    const last = new Map<number, number>()
    const deleted = new Set<number>()
    for (let step = 0; step < 20_000; step++) {
      const key = next(40)
      const op = next(4)
      if (op === 0) {
        cache.set(key, step)
        last.set(key, step)
        deleted.delete(key)
      } else if (op === 1) {
        cache.delete(key)
        deleted.add(key)
      } else if (op === 2 && step % 997 === 0) {
        cache.clear()
        for (const held of last.keys()) deleted.add(held)
      } else {
        const value = cache.get(key)
        if (deleted.has(key)) expect(value).toBeUndefined()
        else if (value !== undefined) expect(value).toBe(last.get(key))
      }
      expect(cache.size).toBeLessThanOrEqual(capacity)
    }
    // A full cache after deletes: what was deleted stays gone, what is set is there, within bounds.
    cache.clear()
    for (let key = 0; key < capacity; key++) cache.set(key, key)
    cache.delete(3)
    cache.delete(7)
    expect(cache.size).toBe(capacity - 2)
    for (let key = 100; key < 100 + capacity; key++) {
      cache.set(key, key)
      expect(cache.get(key)).toBe(key)
      expect(cache.size).toBeLessThanOrEqual(capacity)
    }
    expect(cache.get(3)).toBeUndefined()
    expect(cache.get(7)).toBeUndefined()
  })

  it('costs a miss the same after many: a full cache of distinct keys keeps the newest', () => {
    const cache = new BoundedCache<string, number>(512)
    for (let i = 0; i < 100_000; i++) cache.set(`link-${i}`, i)
    expect(cache.size).toBe(512)
    expect(cache.get('link-99999')).toBe(99_999)
    expect(cache.get(`link-${100_000 - 512}`)).toBe(100_000 - 512)
    expect(cache.get(`link-${100_000 - 513}`)).toBeUndefined()
  })
})

describe('keepLast', () => {
  it('computes once per value asked in a row, again for another, and keeps nothing from a throw', () => {
    const asked: number[] = []
    const twice = keepLast((n: number) => {
      asked.push(n)
      if (Number.isNaN(n)) throw new RangeError('not a number')
      return n * 2
    })
    expect([twice(1), twice(1), twice(2), twice(1)]).toEqual([2, 2, 4, 2])
    expect(asked).toEqual([1, 2, 1])
    expect(() => twice(Number.NaN)).toThrow(RangeError)
    expect(() => twice(Number.NaN)).toThrow(RangeError)
    expect(twice(1)).toBe(2)
    expect(asked).toEqual([1, 2, 1, Number.NaN, Number.NaN])
  })
})
