// The valibot helpers every schema is built from: what a client learns from a refusal (each field
// at its dotted path, every unknown field, the type it sent), and that a hostile body costs no more
// than the first MAX_REPORTED_ERRORS problems.

import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { MAX_REPORTED_ERRORS } from '../../src/limits'
import { WaybillError } from '../../src/errors'
import {
  fieldErrors,
  isRecord,
  list,
  parse,
  pathTo,
  record,
  strict,
  strictFields,
  typeName,
} from '../../src/schemas/valibot'

/** The field errors `schema` finds in `input` (none when it passes). */
function errorsOf(schema: v.GenericSchema, input: unknown) {
  const result = v.safeParse(schema, input)
  return result.success ? [] : fieldErrors(result.issues)
}

describe('typeName', () => {
  it.each([
    [null, 'null'],
    [undefined, 'undefined'],
    [[1], 'an array'],
    [{}, 'an object'],
    ['x', 'a string'],
    [1, 'a number'],
    [true, 'a boolean'],
  ])('%j is %s', (value, name) => {
    expect(typeName(value)).toBe(name)
  })
})

describe('isRecord', () => {
  it('is true for objects only, not arrays or null', () => {
    expect([{}, { a: 1 }, [], null, 'x', 1].map(isRecord)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ])
  })
})

describe('strict', () => {
  const Body = strict(
    { origin: v.string('must be a string'), expiresIn: v.optional(v.number('must be a number')) },
    { required: { origin: 'names the origin and is required' } },
  )

  it('passes a valid object through, leaving out absent optional fields', () => {
    expect(v.parse(Body, { origin: 'photos' })).toEqual({ origin: 'photos' })
    expect(v.parse(Body, { origin: 'photos', expiresIn: 60 })).toEqual({
      origin: 'photos',
      expiresIn: 60,
    })
  })

  it('names every unknown field, not only the first, and the known ones', () => {
    expect(errorsOf(Body, { origin: 'photos', bucket: 'x', region: 'y' })).toEqual([
      { path: 'bucket', message: 'is not a known field (known: origin, expiresIn)' },
      { path: 'region', message: 'is not a known field (known: origin, expiresIn)' },
    ])
    const Query = strict({ prefix: v.string() }, { noun: 'parameter' })
    expect(errorsOf(Query, { prefix: 'a', limit: '5' })).toEqual([
      { path: 'limit', message: 'is not a known parameter (known: prefix)' },
    ])
  })

  it('says what a missing field is, and what a field of the wrong type is', () => {
    expect(errorsOf(Body, { expiresIn: 'soon' })).toEqual([
      { path: 'origin', message: 'names the origin and is required' },
      { path: 'expiresIn', message: 'must be a number' },
    ])
    expect(errorsOf(strict({ a: v.string() }), {})).toEqual([{ path: 'a', message: 'is required' }])
  })

  it('names the type it was given instead of an object', () => {
    expect(errorsOf(Body, [])).toEqual([
      { path: 'body', message: 'must be a JSON object, not an array' },
    ])
    const Item = strict({ key: v.string() }, { type: 'must be an object { "key" }' })
    expect(errorsOf(Item, 'k')).toEqual([
      { path: 'body', message: 'must be an object { "key" }, not a string' },
    ])
  })

  it('refuses an array even where every field is optional (valibot takes one as an object)', () => {
    const Overrides = strict({ a: v.optional(v.string()) }, { type: 'must be an object' })
    expect(errorsOf(Overrides, [])).toEqual([
      { path: 'body', message: 'must be an object, not an array' },
    ])
    expect(errorsOf(Overrides, ['x'])).toEqual([
      { path: 'body', message: 'must be an object, not an array' },
    ])
  })

  it('names "__proto__" and "constructor" as unknown fields, which valibot passes over', () => {
    const input = JSON.parse('{"origin":"photos","__proto__":1,"constructor":2,"x":3}') as unknown
    expect(errorsOf(Body, input).map((error) => error.path)).toEqual([
      '__proto__',
      'constructor',
      'x',
    ])
  })

  it('stops at the cap of reported problems', () => {
    const hostile = Object.fromEntries(
      Array.from({ length: 10 * MAX_REPORTED_ERRORS }, (_, i) => [`f${i}`, i]),
    )
    const result = v.safeParse(Body, { origin: 'photos', ...hostile })
    expect(result.issues).toHaveLength(MAX_REPORTED_ERRORS)
  })
})

describe('strictFields', () => {
  it('names every unknown field of an object, as strict does, and what is missing', () => {
    const Fields = strictFields(
      { mode: v.literal('put'), key: v.string() },
      { required: { key: 'names the object' } },
    )
    expect(errorsOf(Fields, { mode: 'put', a: 1, b: 2 })).toEqual([
      { path: 'key', message: 'names the object' },
      { path: 'a', message: 'is not a known field (known: mode, key)' },
      { path: 'b', message: 'is not a known field (known: mode, key)' },
    ])
    expect(v.parse(Fields, { mode: 'put', key: 'k' })).toEqual({ mode: 'put', key: 'k' })
  })
})

describe('list', () => {
  it('names each bad item by its index', () => {
    const Keys = list(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty')))
    expect(errorsOf(Keys, ['a', '', 'b', 7])).toEqual([
      { path: '1', message: 'must not be empty' },
      { path: '3', message: 'must be a string' },
    ])
    expect(errorsOf(Keys, 'a')).toEqual([
      { path: 'body', message: 'must be an array, not a string' },
    ])
  })

  it('checks no item past the cap of reported problems', () => {
    let checked = 0
    const Item = v.pipe(
      v.string(),
      v.check(() => {
        checked++
        return false
      }, 'is bad'),
    )
    const result = v.safeParse(
      list(Item),
      Array.from({ length: 100_000 }, () => 'x'),
    )
    expect(result.issues).toHaveLength(MAX_REPORTED_ERRORS)
    expect(checked).toBe(MAX_REPORTED_ERRORS)
  })
})

describe('record', () => {
  const Origins = record(v.string(), v.number('must be a number'), (input) => {
    return `must be a JSON object of numbers, not ${typeName(input)}`
  })

  it('takes an object, names each bad value by its key, and refuses an array', () => {
    expect(v.parse(Origins, { a: 1 })).toEqual({ a: 1 })
    expect(errorsOf(Origins, { a: 1, b: 'x' })).toEqual([
      { path: 'b', message: 'must be a number' },
    ])
    expect(errorsOf(Origins, [1])).toEqual([
      { path: 'body', message: 'must be a JSON object of numbers, not an array' },
    ])
  })
})

describe('pathTo and fieldErrors', () => {
  it('turns a path into the dotted field a client can find', () => {
    const body = { items: [{ key: 'a' }, { key: 'b', response: { contentType: 'x' } }] }
    const errors = fieldErrors([
      { message: 'clashes', path: pathTo(body, 'items', 1, 'response', 'contentType') },
    ])
    expect(errors).toEqual([{ path: 'items.1.response.contentType', message: 'clashes' }])
    expect(pathTo(body, 'items', 1).at(-1)).toMatchObject({ type: 'array', key: 1 })
  })

  it('files an issue without a path under "body", and one problem per field', () => {
    expect(
      fieldErrors([
        { message: 'is empty' },
        { message: 'too long', path: ['key'] },
        { message: 'has a NUL', path: ['key'] },
        { message: 'unknown', path: ['other'] },
      ]),
    ).toEqual([
      { path: 'body', message: 'is empty' },
      { path: 'key', message: 'too long' },
      { path: 'other', message: 'unknown' },
    ])
  })

  it('reports at most MAX_REPORTED_ERRORS fields', () => {
    const issues = Array.from({ length: 3 * MAX_REPORTED_ERRORS }, (_, i) => ({
      message: 'bad',
      path: [i],
    }))
    expect(fieldErrors(issues)).toHaveLength(MAX_REPORTED_ERRORS)
  })
})

describe('parse', () => {
  it("answers the schema's output, or throws a 400 naming every field", () => {
    const Body = strict({ origin: v.string('must be a string') })
    expect(parse(Body, { origin: 'photos' })).toEqual({ origin: 'photos' })
    let thrown: unknown
    try {
      parse(Body, { origin: 1, extra: true })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(WaybillError)
    expect(thrown).toMatchObject({
      status: 400,
      errors: [
        { path: 'origin', message: 'must be a string' },
        { path: 'extra', message: 'is not a known field (known: origin)' },
      ],
    })
  })
})
