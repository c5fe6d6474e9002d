// Every relative link of the docs resolves: the file or folder is there, and an `#anchor` is one of
// its headings by GitHub's rules (or, in docs/openapi.json, one of its operationIds).

import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { describe, expect, it } from 'vitest'
import { anchors, links, PAGES, slug, type Link } from './markdown'

/** The operationIds of the API document, which prose links to as `openapi.json#<operationId>`. */
function operationIds(): Set<string> {
  const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string }>>
  }
  return new Set(
    Object.values(document.paths).flatMap((path) =>
      Object.values(path).flatMap((operation) => operation.operationId ?? []),
    ),
  )
}

/** Why a link does not resolve, or undefined when it does. */
function broken({ file, target }: Link, operations: Set<string>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined
  const [path = '', anchor] = target.split('#') as [string, string | undefined]
  const resolved = path === '' ? file : normalize(join(dirname(file), decodeURI(path)))
  if (resolved.startsWith('..')) return 'leads out of the repository'
  if (!existsSync(resolved)) return `${resolved} does not exist`
  if (anchor === undefined) return undefined
  if (statSync(resolved).isDirectory()) return 'an anchor on a folder'
  if (resolved === 'docs/openapi.json') {
    return operations.has(anchor) ? undefined : `no operation ${anchor} in docs/openapi.json`
  }
  if (!resolved.endsWith('.md')) return `an anchor on ${resolved}, which has no headings`
  return anchors(resolved).has(anchor) ? undefined : `${resolved} has no heading #${anchor}`
}

describe('the anchors of headings', () => {
  it('are made as GitHub makes them', () => {
    expect(slug('`POST /v1/links` and `GET /l/{token}`')).toBe('post-v1links-and-get-ltoken')
    expect(slug('`GET /v1/redirect/{origin}/{key…}`')).toBe('get-v1redirectoriginkey')
    expect(slug('Stable URLs (signing windows)')).toBe('stable-urls-signing-windows')
    expect(slug('One-time and N-use links')).toBe('one-time-and-n-use-links')
    expect(slug('R2 on your own domain')).toBe('r2-on-your-own-domain')
  })

  it('count repeated headings as GitHub does', () => {
    const found = anchors('x.md', '# A\n\n## Setup\n\n```md\n## Setup\n```\n\n## Setup\n')
    expect([...found]).toEqual(['a', 'setup', 'setup-1'])
  })
})

describe('every relative link of the docs', () => {
  const operations = operationIds()
  const all = PAGES.flatMap((page) => links(page))

  it('finds the links of every page', () => {
    expect(PAGES).toContain('docs/configuration.md')
    expect(all.length).toBeGreaterThan(50)
  })

  it('reports a link that does not resolve', () => {
    const [missing, anchor, operation, code] = links(
      'README.md',
      '[a](docs/nowhere.md) [b](docs/configuration.md#no-such-heading) [c](docs/openapi.json#noSuchOperation) `[d](e.md)`',
    )
    expect(broken(missing!, operations)).toBe('docs/nowhere.md does not exist')
    expect(broken(anchor!, operations)).toBe(
      'docs/configuration.md has no heading #no-such-heading',
    )
    expect(broken(operation!, operations)).toBe('no operation noSuchOperation in docs/openapi.json')
    expect(code).toBeUndefined()
  })

  it('resolves, to a file and a heading', () => {
    const failures = all.flatMap((link) => {
      const why = broken(link, operations)
      return why === undefined ? [] : [`${link.file}:${link.line} ${link.target}: ${why}`]
    })
    expect(failures).toEqual([])
  })
})
