// A grant as the admin API takes one (StoredGrant) against what docs/admin-openapi.json says of it:
// the document's schema of POST /admin/v1/grants takes exactly the grants the schema takes, for
// grants built of what its rules turn on (prefix and uploadKey shapes, placeholders against
// subjects, uploadKey without write). The seed is printed when it fails.

import { Validator, type Schema } from '@cfworker/json-schema'
import fc from 'fast-check'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import document from '../../docs/admin-openapi.json'
import { KeyGrant, StoredGrant } from '../../src/config/grants'

type Body = { requestBody: { content: { 'application/json': { schema: Schema } } } }
const paths = document.paths as unknown as Record<string, Record<string, Body>>
const schemaOf = (path: string) =>
  paths[path]!.post!.requestBody.content['application/json'].schema as Schema & {
    properties: Record<string, Schema>
  }

/** Text of the pieces a prefix or an uploadKey is judged by. */
const template = fc
  .array(
    fc.constantFrom(
      'a',
      'é',
      '.',
      '..',
      '/',
      '{',
      '}',
      '\\',
      '\x01',
      '\x7f',
      '{uuid}',
      '{filename}',
      '{sub}',
      '{apiKey}',
      '{a/b}',
    ),
    { maxLength: 10 },
  )
  .map((pieces) => pieces.join(''))

/** A key's grant: a grant without `to`. */
const keyGrant = fc.record(
  {
    origin: fc.constant('photos'),
    actions: fc.subarray(['read', 'write', 'list'] as const, { minLength: 1 }),
    prefix: template,
    uploadKey: template,
  },
  { requiredKeys: ['origin', 'actions'] },
)
const grant = fc
  .tuple(
    fc.constantFrom('*', 'apiKey:web', 'sub:alice', 'email:a@example.com', 'role:ops'),
    keyGrant,
  )
  .map(([to, fields]) => ({ to, ...fields }))

describe('the document of a grant', () => {
  it('takes what StoredGrant takes, and refuses what it refuses', () => {
    const validator = new Validator(schemaOf('/admin/v1/grants'), '2020-12', false)
    fc.assert(
      fc.property(grant, (body) => {
        const documented = validator.validate(body).valid
        expect(documented, JSON.stringify(body)).toBe(v.safeParse(StoredGrant, body).success)
      }),
      { numRuns: 3000 },
    )
  })

  it("takes a key's grants as KeyGrant does", () => {
    const keys = schemaOf('/admin/v1/keys').properties.grants as { items: Schema }
    const validator = new Validator(keys.items, '2020-12', false)
    fc.assert(
      fc.property(keyGrant, (body) => {
        const documented = validator.validate(body).valid
        expect(documented, JSON.stringify(body)).toBe(v.safeParse(KeyGrant, body).success)
      }),
      { numRuns: 3000 },
    )
  })
})
