import { describe, expect, it } from 'vitest'
import { issuerFallen, type KeyStanding } from '../../src/auth/standing'

const NOW = new Date('2026-11-29T12:00:00Z')
const config = { apiKeys: [{ id: 'web' }] } as unknown as Parameters<typeof issuerFallen>[0]

describe('issuerFallen', () => {
  it('judges an env key and a token caller at once, without a lookup', () => {
    const lookups: string[] = []
    const storedKey = (id: string) => {
      lookups.push(id)
      return Promise.resolve(undefined)
    }
    expect(issuerFallen(config, 'web', NOW, storedKey)).toBeUndefined()
    expect(issuerFallen(config, null, NOW, storedKey)).toBeUndefined()
    expect(lookups).toEqual([])
  })

  it('looks a stored key up, and says why it fell', async () => {
    const keys: Record<string, KeyStanding> = {
      live: { revokedAt: null, expiresAt: null },
      revoked: { revokedAt: NOW.getTime() - 1, expiresAt: null },
      past: { revokedAt: null, expiresAt: NOW.getTime() },
      later: { revokedAt: null, expiresAt: NOW.getTime() + 1 },
    }
    const storedKey = (id: string) => Promise.resolve(keys[id])
    const judged = (id: string) => issuerFallen(config, id, NOW, storedKey)
    expect(judged('live')).toBeInstanceOf(Promise)
    expect(await judged('live')).toBeUndefined()
    expect(await judged('later')).toBeUndefined()
    expect(await judged('revoked')).toBe('was revoked')
    expect(await judged('past')).toBe('has expired')
    expect(await judged('gone')).toBe('is no longer configured')
  })

  it('finds a key neither configured nor stored gone, with no control plane to ask', async () => {
    expect(await issuerFallen(config, 'gone', NOW, undefined)).toBe('is no longer configured')
  })
})
