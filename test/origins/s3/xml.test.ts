import { describe, expect, it } from 'vitest'
import { s3Error } from '../../../src/origins/s3/store'
import { decodeXmlText, elements, escapeXmlText, text } from '../../../src/origins/s3/xml'

describe('S3 XML', () => {
  it('finds elements in document order and decodes entities and character references', () => {
    const xml =
      '<?xml version="1.0"?><R><Contents><Key>a &amp; b&#x1F389;&#233;</Key></Contents>' +
      '<Contents><Key>&lt;x&gt; &quot;q&quot; &apos;</Key></Contents><IsTruncated>false</IsTruncated></R>'
    expect(elements(xml, 'Contents').map((c) => text(c, 'Key'))).toEqual(['a & b🎉é', '<x> "q" \''])
    expect(text(xml, 'IsTruncated')).toBe('false')
    expect(text(xml, 'Missing')).toBeUndefined()
  })

  it('escapes what it decodes', () => {
    const raw = `"etag" <&> 'x'`
    expect(decodeXmlText(escapeXmlText(raw))).toBe(raw)
    expect(escapeXmlText(raw)).not.toMatch(/[<>"']/)
  })

  it("turns S3's error documents into problems that say what S3 said", () => {
    const doc = (code: string) =>
      `<Error><Code>${code}</Code><Message>The thing &amp; more</Message></Error>`
    const missing = s3Error('CompleteMultipartUpload', 404, doc('NoSuchUpload'))
    expect(missing.status).toBe(404)
    expect(missing.message).toBe(
      'CompleteMultipartUpload was refused by the store: NoSuchUpload: The thing & more',
    )
    expect(s3Error('CompleteMultipartUpload', 400, doc('InvalidPart')).status).toBe(400)
    expect(s3Error('ListObjectsV2', 403, doc('AccessDenied')).status).toBe(502)
    expect(s3Error('ListObjectsV2', 503, '').message).toBe(
      'ListObjectsV2 failed at the store: HTTP 503',
    )
  })
})
