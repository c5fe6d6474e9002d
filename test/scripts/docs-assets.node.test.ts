// What scripts/docs-assets.mjs puts in public/ for the runtime to serve before the Worker runs:
// the committed API document as it is, and a reference page that reads it with Scalar's bundle
// from the Worker's own assets (test/browser/docs.test.ts renders that page in Chromium).

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DOCS_BUNDLE, DOCS_SCRIPT, writeApiAssets } from '../../scripts/docs-assets.mjs'

describe('the API assets', () => {
  it('serve the committed document byte for byte, and a page that reads it', async () => {
    const { document, page, script } = await writeApiAssets()
    expect(readFileSync(document, 'utf8')).toBe(readFileSync('docs/openapi.json', 'utf8'))
    const html = readFileSync(page, 'utf8')
    expect(html).toMatch(/^<!doctype html>/i)
    expect(html).toContain(`src="/${DOCS_BUNDLE}"`)
    expect(html).toContain(`<script src="/${DOCS_SCRIPT}"></script>`)
    expect(html).not.toMatch(/<script(?! src=)/)
    expect(readFileSync(script, 'utf8')).toMatch(/"url": ?"\/openapi\.json"/)
    // Nothing from a CDN: the page must work on a machine without the network.
    expect(html).not.toMatch(/https?:\/\//)
  })
})
