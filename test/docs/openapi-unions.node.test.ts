// A union's bounds in the generated OpenAPI documents say one thing. A `maxLength` (or
// `maxItems`) written beside `anyOf` / `oneOf` bounds every string (array) the union holds; when a
// branch allows longer, the document contradicts itself and tools that trust the outer bound (a
// client, Schemathesis) disagree with the server. It happened: the admin API's `role` took a
// valibot maxLength(50) meant for the list of roles as a string's maxLength beside the union.

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

type Schema = Record<string, unknown>

const BOUNDS = [
  ['maxLength', 'string'],
  ['maxItems', 'array'],
] as const

/** Where a union's outer bound is tighter than a branch's own, as JSON pointers with both bounds. */
function contradictions(node: unknown, pointer = ''): string[] {
  if (node === null || typeof node !== 'object') return []
  const found: string[] = []
  const schema = node as Schema
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (Array.isArray(branches)) {
    for (const [bound, type] of BOUNDS) {
      const outer = schema[bound]
      if (typeof outer !== 'number') continue
      for (const branch of branches) {
        const inner = branch[bound]
        if (branch.type === type && (typeof inner !== 'number' || inner > outer)) {
          found.push(`${pointer}: ${bound} ${outer} beside a ${type} branch of ${String(inner)}`)
        }
      }
    }
  }
  for (const [key, value] of Object.entries(schema)) {
    found.push(...contradictions(value, `${pointer}/${key}`))
  }
  return found
}

describe('the OpenAPI documents', () => {
  for (const file of ['docs/openapi.json', 'docs/admin-openapi.json']) {
    it(`${file}: no union is bounded tighter outside than inside`, () => {
      const document = JSON.parse(readFileSync(file, 'utf8')) as unknown
      expect(contradictions(document)).toEqual([])
    })
  }

  it('finds the contradiction the admin API had', () => {
    const role = {
      anyOf: [
        { type: 'string', maxLength: 200 },
        { type: 'array', items: { type: 'string' } },
      ],
      maxLength: 50,
    }
    expect(contradictions({ role })).toEqual(['/role: maxLength 50 beside a string branch of 200'])
  })
})
