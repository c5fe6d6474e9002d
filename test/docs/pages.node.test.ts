// The docs as a whole: a short README that leads to every page, and pages that keep up with the
// code they describe (every variable the Worker reads, every problem code it answers).

import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { links } from './markdown'

const read = (file: string) => readFileSync(file, 'utf8')

describe('the docs', () => {
  it('keep the README to 200 lines', () => {
    expect(read('README.md').trimEnd().split('\n').length).toBeLessThanOrEqual(200)
  })

  it('link every page of docs/ from the README', () => {
    const linked = new Set(links('README.md').map(({ target }) => target.split('#')[0]))
    for (const page of readdirSync('docs').filter((name) => name.endsWith('.md'))) {
      expect(linked, page).toContain(`docs/${page}`)
    }
  })

  it('name every variable and binding the Worker reads, in docs/configuration.md', () => {
    const env = read('src/env.ts')
    const names = [...env.matchAll(/^ {2}([A-Z][A-Z0-9_]+)\??:/gm)].map(([, name]) => name!)
    expect(names.length).toBeGreaterThan(20)
    const page = read('docs/configuration.md')
    for (const name of names) expect(page, name).toContain(`\`${name}\``)
  })

  it('name every problem code, in docs/api.md', () => {
    const table = read('src/errors.ts')
    const codes = [...table.matchAll(/^ {2}([a-z_]+): \{ status: \d+/gm)].map(([, code]) => code!)
    expect(codes.length).toBeGreaterThan(15)
    const page = read('docs/api.md')
    for (const code of codes) expect(page, code).toContain(`\`${code}\``)
  })
})
