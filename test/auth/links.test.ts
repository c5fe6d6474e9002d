// Link tokens: sealed tokens (test/core/token.test.ts) whose payload must be a link's, and the hash
// that names who issued one.

import { describe, expect, it } from 'vitest'
import { signLink, verifyLink, type LinkPayload } from '../../src/auth/links'
import { principalHash } from '../../src/principal/subjects'
import { base64UrlEncode } from '../../src/core/bytes'
import { sealToken } from '../../src/core/token'
import { sha256 } from '../helpers/hex'

const PAYLOAD = {
  o: 'photos',
  k: 'a/ü b.jpg',
  e: 1_900_000_000,
  i: 1_800_000_000,
  p: 'x',
  a: 'the-web-frontend',
  j: 'q3T0m7y2Zw8xVb1c',
} satisfies LinkPayload
const config = { tokenSecrets: [{ id: 'k1', secret: 'link-test-secret-0123456789abcdef' }] }

describe('signLink and verifyLink', () => {
  it('round-trip a link, its issuing key or a token caller', () => {
    expect(verifyLink(config, signLink(config, PAYLOAD))).toEqual({ payload: PAYLOAD })
    const byToken = { ...PAYLOAD, a: null }
    expect(verifyLink(config, signLink(config, byToken))).toEqual({ payload: byToken })
  })

  it('verify a link followed again from what they kept, only under the secrets that sealed it', () => {
    const token = signLink(config, PAYLOAD)
    const first = verifyLink(config, token)
    expect(first).toEqual({ payload: PAYLOAD })
    expect(verifyLink(config, token)).toEqual(first)
    // Kept per secret list: a configuration without the secret refuses what another accepted.
    const rotated = { tokenSecrets: [{ id: 'k2', secret: 'another-link-secret-0123456789ab' }] }
    expect(verifyLink(rotated, token)).toEqual({ fault: 'unknown_secret' })
    const sameId = { tokenSecrets: [{ id: 'k1', secret: 'a-new-secret-under-an-old-id-0123' }] }
    expect(verifyLink(sameId, token)).toEqual({ fault: 'tampered' })
    // A token one character off (its tag's first) is verified afresh, and refused.
    const at = token.lastIndexOf('.') + 1
    const changed = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`
    expect(verifyLink(config, changed)).toEqual({ fault: 'tampered' })
    expect(verifyLink(config, token)).toEqual(first)
  })

  it('conceal the key that issued it: the token shows neither its id nor the same text twice', () => {
    const token = signLink(config, PAYLOAD)
    const payload = atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))
    expect(payload).not.toContain('web')
    const other = signLink(config, { ...PAYLOAD, j: 'AAAAAAAAAAAAAAAA' })
    const hidden = (text: string) => (JSON.parse(text) as { a: string }).a
    expect(hidden(payload)).not.toBe(
      hidden(atob(other.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))),
    )
  })

  it('call a correctly sealed token whose payload is not a link malformed', () => {
    const other = sealToken(config.tokenSecrets, 'link', { ...PAYLOAD, e: 'tomorrow' })
    expect(verifyLink(config, other)).toEqual({ fault: 'malformed' })
  })

  it('never open a token sealed for another purpose', () => {
    const cursor = sealToken(config.tokenSecrets, 'list-cursor', PAYLOAD)
    expect(verifyLink(config, cursor)).toEqual({ fault: 'tampered' })
  })
})

describe('principalHash', () => {
  it('is the first 8 bytes of the SHA-256 of the caller, base64url', async () => {
    expect(principalHash('jwt:alice')).toBe(
      base64UrlEncode((await sha256('jwt:alice')).subarray(0, 8)),
    )
    expect(principalHash('jwt:alice')).not.toBe(principalHash('jwt:bob'))
  })
})
