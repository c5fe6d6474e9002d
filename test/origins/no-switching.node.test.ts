// Code above the drivers never asks an origin's type (docs/adding-an-origin.md): it asks for a
// capability. A new store is then a folder of src/origins/, not a hunt through the tree.

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : []
  })
}

// A comparison with an origin type's name, either way round, or a `case` of one.
const TYPES = '(s3|cloudfront|r2)'
const SWITCHING = new RegExp(
  `type\\s*[!=]==?\\s*['"\`]${TYPES}['"\`]|['"\`]${TYPES}['"\`]\\s*[!=]==?\\s*[\\w?.]*type\\b|case\\s+['"]${TYPES}['"]`,
)

describe('origins are asked for capabilities, never for their type', () => {
  it('has no code outside src/origins/ that compares an origin type', () => {
    const found = files('src')
      .filter((path) => !path.startsWith(join('src', 'origins')))
      .flatMap((path) =>
        readFileSync(path, 'utf8')
          .split('\n')
          .map((line, i) => ({ at: `${path}:${i + 1}`, line }))
          .filter(({ line }) => SWITCHING.test(line)),
      )
    expect(found).toEqual([])
  })

  it('would find one', () => {
    expect(SWITCHING.test("if (origin.type === 's3') return")).toBe(true)
    expect(SWITCHING.test("origin?.type !== 'cloudfront'")).toBe(true)
    expect(SWITCHING.test("'r2' === origin.type")).toBe(true)
    expect(SWITCHING.test("case 'cloudfront':")).toBe(true)
    expect(SWITCHING.test("at?.type === 'object'")).toBe(false)
  })
})
