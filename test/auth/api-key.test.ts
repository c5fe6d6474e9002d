import { describe, expect, it } from 'vitest'
import { findApiKey } from '../../src/auth/api-key'
import type { ApiKey } from '../../src/config'
import { sha256 } from '../helpers/hex'

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
  it('findApiKey: the first of two keys with the same hash wins', async () => {
    const hash = await sha256('wb_shared')
    const keys: ApiKey[] = [
      { id: 'first', sha256: hash },
      { id: 'second', sha256: hash },
    ]
    expect(findApiKey(keys, 'wb_shared')?.id).toBe('first')
  })
})
