// The map of src/ in docs/architecture.md against the tree: every directory and every file at the
// top of src/ is on it, and everything on it exists.

import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { codeBlocks } from './markdown'

/** The paths the map names: one entry per line, nested by two spaces, until the next top folder. */
function mapped(): string[] {
  const map = codeBlocks('docs/architecture.md').find((block) => block.text.startsWith('src/\n'))
  if (map === undefined) throw new Error('docs/architecture.md: no code block starting "src/"')
  const lines = map.text.split('\n')
  const paths: string[] = []
  const stack: string[] = []
  for (const line of lines.slice(
    0,
    lines.findIndex((text, i) => i > 0 && /^\S/.test(text)),
  )) {
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

describe("docs/architecture.md's map of src/", () => {
  const paths = mapped()

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
