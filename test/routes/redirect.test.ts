import { describe, expect, it } from 'vitest'
import { ALL_KEY, NOW, PHOTOS_KEY, app, problemOf, testEnv } from '../helpers/routes'

async function redirect(path: string, key: string | null = ALL_KEY): Promise<Response> {
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` }
  return app.request(path, { headers }, await testEnv())
}

describe('GET /v1/redirect/{origin}/{key}', () => {
  it('302 to a signed GET URL for the key, decoded from the path exactly once', async () => {
    const response = await redirect('/v1/redirect/photos/a%20b/%2525/c%2Bd%2Fe/%C3%A7.jpg')
    expect(response.status).toBe(302)
    const location = new URL(response.headers.get('location')!)
    expect(location.origin).toBe('https://photos.s3.eu-west-1.amazonaws.com')
    // Key "a b/%25/c+d/e/ç.jpg": %2F in the request is a slash in the key, %2525 a literal "%25".
    expect(location.pathname).toBe('/a%20b/%2525/c%2Bd/e/%C3%A7.jpg')
    expect(location.searchParams.get('X-Amz-Date')).toBe('20261123T100000Z')
    expect(location.searchParams.get('X-Amz-Expires')).toBe('900')
  })

  it('keeps a trailing slash; refuses "//" and dot segments on a safe origin', async () => {
    const ok = await redirect('/v1/redirect/photos/folder/')
    expect(new URL(ok.headers.get('location')!).pathname).toBe('/folder/')
    for (const path of ['/v1/redirect/photos/a//b', '/v1/redirect/photos/a/%252e%252e/b']) {
      const response = await redirect(path)
      expect(response.status, path).toBe(400)
      expect((await problemOf(response)).errors?.[0]?.path).toBe('key')
    }
  })

  it('lets the browser cache the redirect, but never past the URL (less 60 s)', async () => {
    const response = await redirect('/v1/redirect/photos/a.jpg?expiresIn=3600')
    expect(response.headers.get('cache-control')).toBe('private, max-age=3540')
    expect(new URL(response.headers.get('location')!).searchParams.get('X-Amz-Expires')).toBe(
      '3600',
    )
    expect(response.headers.get('vary')).toBe('Authorization, Cookie')
  })

  it('no-store when the URL lives 60 s or less', async () => {
    for (const expiresIn of [1, 60]) {
      const response = await redirect(`/v1/redirect/photos/a.jpg?expiresIn=${expiresIn}`)
      expect(response.headers.get('cache-control')).toBe('no-store')
    }
  })

  it('400 for a bad expiresIn, bad percent-encoding, a lone surrogate or an over-long key', async () => {
    const cases: Array<[string, string]> = [
      ['/v1/redirect/photos/a.jpg?expiresIn=0', 'expiresIn'],
      ['/v1/redirect/photos/a.jpg?expiresIn=604801', 'expiresIn'],
      ['/v1/redirect/photos/a.jpg?expiresIn=1.5', 'expiresIn'],
      ['/v1/redirect/photos/a.jpg?expiresIn=abc', 'expiresIn'],
      ['/v1/redirect/photos/a%E0%A4', 'key'],
      ['/v1/redirect/photos/a%ED%A0%80', 'key'],
      [`/v1/redirect/photos/${'x'.repeat(1025)}`, 'key'],
      ['/v1/redirect/Photos/a.jpg', 'origin'],
    ]
    for (const [path, field] of cases) {
      const response = await redirect(path)
      expect(response.status, path).toBe(400)
      expect(
        (await problemOf(response)).errors?.map((e) => e.path),
        path,
      ).toContain(field)
    }
  })

  it('401 without a key; 403 for an origin without a grant, configured or not', async () => {
    expect((await redirect('/v1/redirect/photos/a.jpg', null)).status).toBe(401)
    expect((await redirect('/v1/redirect/docs/a.jpg', PHOTOS_KEY)).status).toBe(403)
    expect((await redirect('/v1/redirect/nowhere/a.jpg')).status).toBe(403)
    expect((await redirect('/v1/redirect/photos/a.jpg', PHOTOS_KEY)).status).toBe(302)
  })

  it('takes download over inline when both are given (a query cannot document "not both")', async () => {
    const response = await redirect('/v1/redirect/photos/a.pdf?download&inline=b.pdf')
    expect(response.status).toBe(302)
    const location = new URL(response.headers.get('location')!)
    expect(location.searchParams.get('response-content-disposition')).toMatch(
      /^attachment; filename="a\.pdf"/,
    )
  })

  it('answers HEAD like GET', async () => {
    const response = await app.request(
      '/v1/redirect/photos/a.jpg',
      { method: 'HEAD', headers: { authorization: `Bearer ${ALL_KEY}` } },
      await testEnv(),
    )
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toContain('X-Amz-Signature=')
  })

  it('signs with the clock the app was given', async () => {
    const response = await redirect('/v1/redirect/photos/a.jpg')
    const date = new URL(response.headers.get('location')!).searchParams.get('X-Amz-Date')
    expect(date).toBe(NOW.toISOString().replace(/[-:]|\.\d{3}/g, ''))
  })

  it('redirects keys with line separators (matched across them) and encodes them once', async () => {
    const response = await redirect('/v1/redirect/photos/a%E2%80%A8b')
    expect(response.status).toBe(302)
    expect(new URL(response.headers.get('location')!).pathname).toBe('/a%E2%80%A8b')
  })

  it('refuses unknown query parameters, as bodies refuse unknown fields', async () => {
    const response = await redirect('/v1/redirect/photos/a.jpg?expires=60')
    expect(response.status).toBe(400)
    expect((await problemOf(response)).errors?.[0]?.path).toBe('expires')
  })
})
