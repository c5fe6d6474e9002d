// The README's map of src/ (under "Development") against the tree: every directory and every file
// at the top of src/ is on it, and everything on it exists.

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/** The paths the map names: one entry per line, nested by two spaces. */
function mapped(readme: string): string[] {
  const block = readme.slice(readme.indexOf('```\nsrc/\n') + 4)
  const lines = block.slice(0, block.indexOf('\npublic/')).split('\n')
  const paths: string[] = []
  const stack: string[] = []
  for (const line of lines) {
    const match = /^( *)(\S+\/|\S+\.ts)(?: |$)/.exec(line)
    if (match === null) continue
    const depth = match[1]!.length / 2
    stack.length = depth
    stack.push(match[2]!.replace(/\/$/, ''))
    paths.push(stack.join('/'))
  }
  return paths
}

function directories(dir: string): string[] {
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isDirectory())
    .flatMap((path) => [path, ...directories(path)])
}

describe("the README's map of src/", () => {
  const paths = mapped(readFileSync('README.md', 'utf8'))

  it('names every directory and every top-level file', () => {
    const topFiles = readdirSync('src')
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `src/${name}`)
    for (const path of [...directories('src'), ...topFiles]) expect(paths, path).toContain(path)
  })

  it('names nothing that is not there', () => {
    expect(paths.length).toBeGreaterThan(10)
    for (const path of paths) expect(() => statSync(path), path).not.toThrow()
  })
})
