import { describe, expect, it } from 'vitest'
import { typeName } from '../../src/schemas/valibot'

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
