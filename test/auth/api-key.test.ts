import { describe, expect, it } from 'vitest'
import { constantTimeEqual, findApiKey } from '../../src/auth/api-key'
import type { ApiKey } from '../../src/config'
import { sha256 } from '../hex'

describe('constantTimeEqual', () => {
  it('is true only for the same bytes', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true)
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false)
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2]))).toBe(false)
    expect(constantTimeEqual(new Uint8Array(), new Uint8Array())).toBe(true)
  })
})

describe('findApiKey', () => {
  it('finds the key whose hash matches, and nothing for a key one character off', async () => {
    const keys: ApiKey[] = [
      { id: 'first', sha256: await sha256('wb_first_key') },
      { id: 'second', sha256: await sha256('wb_second_key'), label: 'second' },
    ]
    expect(findApiKey(keys, 'wb_second_key')?.id).toBe('second')
    expect(findApiKey(keys, 'wb_first_key')?.id).toBe('first')
    expect(findApiKey(keys, 'wb_second_kez')).toBeUndefined()
    expect(findApiKey(keys, '')).toBeUndefined()
    expect(findApiKey([], 'wb_first_key')).toBeUndefined()
  })

  it('hashes the key as UTF-8, as the configured hashes were made', async () => {
    const keys: ApiKey[] = [{ id: 'unicode', sha256: await sha256('wb_ключ_🔑') }]
    expect(findApiKey(keys, 'wb_ключ_🔑')?.id).toBe('unicode')
    const long = `wb_${'x'.repeat(5000)}`
    expect(findApiKey([{ id: 'long', sha256: await sha256(long) }], long)?.id).toBe('long')
  })
})

describe('edge cases', () => {
  it('constantTimeEqual: a longer array is unequal even when its extra bytes are zero', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2, 0]), new Uint8Array([1, 2]))).toBe(false)
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 0]))).toBe(false)
  })

  it('findApiKey: the first of two keys with the same hash wins', async () => {
    const hash = await sha256('wb_shared')
    const keys: ApiKey[] = [
      { id: 'first', sha256: hash },
      { id: 'second', sha256: hash },
    ]
    expect(findApiKey(keys, 'wb_shared')?.id).toBe('first')
  })
})
