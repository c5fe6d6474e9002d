import { describe, expect, it } from 'vitest'
import { resolveS3Endpoint } from '../../../src/core/s3/endpoint'
import { signPostPolicy } from '../../../src/core/s3/post-policy'
import { hmacSha256Hex, sigV4SigningKey } from '../../helpers/hex'

const NOW = new Date('2026-11-23T10:00:00.250Z')
const credentials = {
  accessKeyId: 'AKIDPOSTPOLICYTEST',
  secretAccessKey: 'postPolicyTestSecret/notReal+0123',
  sessionToken: 'post/policy+token==',
}

describe('signPostPolicy', () => {
  it('lists every condition the form must meet and signs the base64 policy', async () => {
    const post = await signPostPolicy({
      endpoint: resolveS3Endpoint({ bucket: 'photos', region: 'eu-west-1', style: 'virtual' }),
      bucket: 'photos',
      region: 'eu-west-1',
      credentials,
      now: NOW,
      expiresIn: 600,
      key: { startsWith: 'users/ümit/' },
      contentType: 'image/png',
      contentLength: { min: 0, max: 1024 },
      checksumSha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
      metadata: { caption: 'a cat' },
      successActionStatus: 201,
    })
    expect(post.url).toBe('https://photos.s3.eu-west-1.amazonaws.com/')
    expect(post.expiresAt.toISOString()).toBe('2026-11-23T10:10:00.000Z')
    expect(JSON.parse(post.document)).toEqual({
      expiration: '2026-11-23T10:10:00.000Z',
      conditions: [
        { bucket: 'photos' },
        ['starts-with', '$key', 'users/ümit/'],
        ['eq', '$Content-Type', 'image/png'],
        ['content-length-range', 0, 1024],
        { 'x-amz-checksum-algorithm': 'SHA256' },
        { 'x-amz-checksum-sha256': 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=' },
        { success_action_status: '201' },
        { 'x-amz-meta-caption': 'a cat' },
        { 'x-amz-algorithm': 'AWS4-HMAC-SHA256' },
        { 'x-amz-credential': 'AKIDPOSTPOLICYTEST/20261123/eu-west-1/s3/aws4_request' },
        { 'x-amz-date': '20261123T100000Z' },
        { 'x-amz-security-token': 'post/policy+token==' },
      ],
    })
    // The policy is the UTF-8 of the document in base64; the signature its HMAC with the key.
    const utf8 = new TextEncoder().encode(post.document)
    expect(post.fields.policy).toBe(btoa(String.fromCharCode(...utf8)))
    expect(post.fields['x-amz-signature']).toBe(
      await hmacSha256Hex(
        await sigV4SigningKey(credentials.secretAccessKey, '20261123', 'eu-west-1'),
        post.fields.policy!,
      ),
    )
    expect(post.fields.key).toBe('users/ümit/${filename}')
    // A type is always exact: a comma-separated value would pass starts-with as several types.
    expect(post.fields['Content-Type']).toBe('image/png')
    expect(post.fields['x-amz-checksum-sha256']).toBe(
      'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    )
    expect(Object.keys(post.fields).slice(-2)).toEqual(['policy', 'x-amz-signature'])
    expect(JSON.stringify(post)).not.toContain(credentials.secretAccessKey)
  })

  it('posts to the bucket path on a path-style endpoint, with exact key and type', async () => {
    const post = await signPostPolicy({
      endpoint: resolveS3Endpoint({
        bucket: 'demo',
        region: 'us-east-1',
        endpoint: 'http://127.0.0.1:7070',
        style: 'path',
      }),
      bucket: 'demo',
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
      now: NOW,
      expiresIn: 60,
      key: { eq: 'a b.png' },
      contentType: 'image/png',
      contentLength: { min: 10, max: 10 },
    })
    expect(post.url).toBe('http://127.0.0.1:7070/demo/')
    expect(post.fields.key).toBe('a b.png')
    expect(post.fields['Content-Type']).toBe('image/png')
    expect(post.fields.success_action_status).toBeUndefined()
    expect(post.fields['x-amz-checksum-sha256']).toBeUndefined()
    const conditions = (JSON.parse(post.document) as { conditions: unknown[] }).conditions
    expect(conditions).toContainEqual(['eq', '$key', 'a b.png'])
    expect(conditions).toContainEqual(['content-length-range', 10, 10])
  })
})
