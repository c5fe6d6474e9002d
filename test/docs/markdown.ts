// What the docs tests read in a Markdown file: its fenced code blocks, its headings' anchors (by
// GitHub's rules) and its links, each with the line it is on. Code blocks and inline code hold no
// links or headings.

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The pages the docs tests check: the README, the changelog, docs/ and the client's README. */
export const PAGES = [
  'README.md',
  'CHANGELOG.md',
  'client/README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
]

export interface CodeBlock {
  file: string
  /** 1-based, the opening fence's line. */
  line: number
  /** The info string's first word (`ts`, `sh`, …); '' when it has none. */
  lang: string
  /** The info string's other words (`output`, `illustration`). */
  tags: string[]
  /** The block's text, its fence's indentation taken off. */
  text: string
}

export interface Link {
  file: string
  line: number
  target: string
}

const FENCE = /^( *)(`{3,}|~{3,})(.*)$/

/** The file's lines outside code blocks, and its code blocks. */
function split(file: string, markdown: string): { prose: [number, string][]; blocks: CodeBlock[] } {
  const prose: [number, string][] = []
  const blocks: CodeBlock[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!)
    if (open === null) {
      prose.push([i + 1, lines[i]!])
      continue
    }
    const [, indent, fence, info] = open as unknown as [string, string, string, string]
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length; j++) {
      const line = lines[j]!
      if (line.trim() === fence) break
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart())
    }
    if (j === lines.length) throw new Error(`${file}:${i + 1}: a code block is never closed`)
    const [lang = '', ...tags] = info.trim().split(/\s+/).filter(Boolean)
    blocks.push({ file, line: i + 1, lang, tags, text: body.join('\n') })
    i = j
  }
  return { prose, blocks }
}

export function codeBlocks(file: string, markdown = readFileSync(file, 'utf8')): CodeBlock[] {
  return split(file, markdown).blocks
}

/** Inline code, which holds no links, taken out of a line. */
const withoutCode = (line: string) => line.replace(/(`+)[\s\S]*?\1/g, '')

/** A heading's anchor as GitHub makes it: lower case, punctuation gone, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** Every anchor of the file's headings; a repeated one gets `-1`, `-2`, … as on GitHub. */
export function anchors(file: string, markdown = readFileSync(file, 'utf8')): Set<string> {
  const seen = new Map<string, number>()
  const found = new Set<string>()
  for (const [, line] of split(file, markdown).prose) {
    const heading = /^#{1,6} +(.*?) *#* *$/.exec(line)
    if (heading === null) continue
    const base = slug(heading[1]!)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    found.add(count === 0 ? base : `${base}-${count}`)
  }
  return found
}

/** Every inline link and image of the file's prose (`[text](target)`, `<a href>`). */
export function links(file: string, markdown = readFileSync(file, 'utf8')): Link[] {
  const found: Link[] = []
  for (const [line, text] of split(file, markdown).prose) {
    const prose = withoutCode(text)
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ file, line, target: match[1]! })
    }
    for (const match of prose.matchAll(/<a\s[^>]*href="([^"]+)"/g)) {
      found.push({ file, line, target: match[1]! })
    }
  }
  return found
}
