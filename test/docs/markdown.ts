// What the docs tests read in a Markdown file: its fenced code blocks, each with the line it is on.

import { readFileSync } from 'node:fs'

interface CodeBlock {
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
