// A caller's one name (issue #31): `apiKey:<id>` as grants and quotas name a key, in logs, usage,
// audit events and revocations alike; and the binding what waybill keeps for a caller is keyed by,
// which did not change with the name.

import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { principalHash, subjectsOf, subjectText } from '../src/principal/subjects'
import { bindingOfName, principalBinding, principalName, type Principal } from '../src/principal'
import { PrincipalName } from '../src/schemas/fields'

const key: Principal = { kind: 'api-key', id: 'web', claims: {}, roles: new Set() }
const jwt: Principal = { kind: 'jwt', id: 'alice', claims: {}, roles: new Set() }
const access: Principal = { kind: 'access', id: 'alice', claims: {}, roles: new Set() }

describe("a caller's name", () => {
  it('spells an API key as its grants name it', () => {
    expect(principalName(key)).toBe('apiKey:web')
    expect(subjectText(subjectsOf(key)[0]!)).toBe(principalName(key))
    expect(principalName(jwt)).toBe('jwt:alice')
    expect(principalName(access)).toBe('access:alice')
    // A followed link counts under its issuer's hash.
    expect(principalName({ kind: 'link', id: 'h' })).toBe('link:h')
  })

  it('reads the spelling before it as the same caller', () => {
    expect(v.parse(PrincipalName, 'api-key:web')).toBe('apiKey:web')
    expect(v.parse(PrincipalName, 'apiKey:web')).toBe('apiKey:web')
    expect(v.parse(PrincipalName, 'jwt:alice')).toBe('jwt:alice')
    for (const wrong of ['apikey:web', 'sub:alice', 'apiKey:', 'apiKey:a\nb']) {
      expect(v.safeParse(PrincipalName, wrong).success, wrong).toBe(false)
    }
  })
})

describe("a caller's binding", () => {
  it('is what it was before callers had one name, so nothing issued or counted before breaks', () => {
    expect(principalBinding(key)).toBe('api-key:web')
    expect(principalBinding(jwt)).toBe('jwt:alice')
  })

  it('is found from either spelling of the name: a link revoked by caller is found by its hash', () => {
    const carried = principalHash(principalBinding(key))
    for (const name of [principalName(key), 'api-key:web']) {
      expect(bindingOfName(name)).toBe('api-key:web')
      expect(principalHash(bindingOfName(name))).toBe(carried)
    }
    expect(bindingOfName('jwt:alice')).toBe(principalBinding(jwt))
    expect(bindingOfName('access:alice')).toBe(principalBinding(access))
  })
})
