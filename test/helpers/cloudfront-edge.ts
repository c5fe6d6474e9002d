// A CloudFront edge for the tests, in Node: it verifies a signed URL (canned or custom policy) or
// signed cookies as CloudFront does — the key pair id names a public key of the key group, the
// signature verifies over the policy with it (RSA or ECDSA, SHA-1 or SHA-256), the policy's
// resource matches the URL as requested (without CloudFront's own parameters; `*` and `?`
// wildcards), and its time has not passed — then serves the object from the bucket behind it
// (versitygw), passing `response-*` parameters on as a distribution that forwards them does.
// Anything else is a 403, as CloudFront's. The conformance suite's verifier for CloudFront origins
// (test/origins/conformance.ts).
//
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/private-content-creating-signed-url-canned-policy.html
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/private-content-creating-signed-url-custom-policy.html
//
// `POST /__keys {"keyPairId", "publicKey"}` adds a key to the key group (the tests make theirs).

import { createPublicKey, verify } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { AwsClient } from 'aws4fetch'

const CLOUDFRONT_PARAMS = new Set([
  'Expires',
  'Policy',
  'Signature',
  'Key-Pair-Id',
  'Hash-Algorithm',
])

interface Statement {
  Resource: string
  Condition: { DateLessThan: { 'AWS:EpochTime': number } }
}

/** CloudFront's URL-safe base64, decoded. */
function cloudFrontBase64Decode(text: string): Buffer {
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64')
}

/** `resource` (CloudFront's wildcards: `*` any run, `?` one character) against `url`. */
function matches(resource: string, url: string): boolean {
  const pattern = resource
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/]/g, '\\$&')))
    .join('')
  return new RegExp(`^${pattern}$`, 's').test(url)
}

function cookiesOf(request: IncomingMessage): Map<string, string> {
  const cookies = new Map<string, string>()
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=')
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim())
  }
  return cookies
}

/** Why the request is refused, or undefined when its signature and policy let it through. */
function refusal(
  keys: ReadonlyMap<string, string>,
  url: URL,
  cookies: ReadonlyMap<string, string>,
  nowS: number,
): string | undefined {
  const q = url.searchParams
  const fromQuery = q.has('Signature')
  const get = (name: string) =>
    fromQuery ? (q.get(name) ?? undefined) : cookies.get(`CloudFront-${name}`)
  const keyPairId = get('Key-Pair-Id')
  const signature = get('Signature')
  if (keyPairId === undefined || signature === undefined) return 'missing signature'
  const publicKey = keys.get(keyPairId)
  if (publicKey === undefined) return 'unknown key pair id'
  // The URL as requested, without CloudFront's own parameters.
  const kept = [...q].filter(([name]) => !CLOUDFRONT_PARAMS.has(name))
  const rawQuery = (url.search.slice(1) || '')
    .split('&')
    .filter(
      (pair) => pair !== '' && !CLOUDFRONT_PARAMS.has(decodeURIComponent(pair.split('=')[0]!)),
    )
  const resourceUrl = `${url.origin}${url.pathname}${kept.length > 0 ? `?${rawQuery.join('&')}` : ''}`
  let policy: string
  const encoded = get('Policy')
  const expires = get('Expires')
  if (encoded !== undefined) policy = cloudFrontBase64Decode(encoded).toString('utf8')
  else if (expires !== undefined) {
    policy = `{"Statement":[{"Resource":${JSON.stringify(resourceUrl)},"Condition":{"DateLessThan":{"AWS:EpochTime":${expires}}}}]}`
  } else return 'no policy'
  const hash = get('Hash-Algorithm') === 'SHA256' ? 'sha256' : 'sha1'
  const key = createPublicKey(publicKey)
  const ok = verify(hash, Buffer.from(policy), key, cloudFrontBase64Decode(signature))
  if (!ok) return 'signature does not verify'
  let statement: Statement
  try {
    statement = (JSON.parse(policy) as { Statement: [Statement] }).Statement[0]
  } catch {
    return 'malformed policy'
  }
  if (!matches(statement.Resource, resourceUrl)) return 'resource does not match'
  if (!(nowS < statement.Condition.DateLessThan['AWS:EpochTime'])) return 'expired'
  return undefined
}

export interface CloudFrontEdge {
  /** `http://127.0.0.1:<port>/`: a distribution's base URL. */
  url: string
  stop(): Promise<void>
}

/**
 * An edge in front of `bucket` on versitygw at `endpoint`, answering GET and HEAD for signed
 * requests only.
 */
export async function startCloudFrontEdge(origin: {
  endpoint: string
  bucket: string
  accessKeyId: string
  secretAccessKey: string
}): Promise<CloudFrontEdge> {
  const keys = new Map<string, string>()
  const store = new AwsClient({
    accessKeyId: origin.accessKeyId,
    secretAccessKey: origin.secretAccessKey,
    service: 's3',
    region: 'us-east-1',
    retries: 0,
  })
  const server = createServer((request, response) => {
    void serve(request, response).catch(() => response.writeHead(502).end())
  })
  async function serve(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', `http://${request.headers.host}`)
    if (request.method === 'POST' && url.pathname === '/__keys') {
      let body = ''
      for await (const chunk of request) body += String(chunk)
      const { keyPairId, publicKey } = JSON.parse(body) as { keyPairId: string; publicKey: string }
      keys.set(keyPairId, publicKey)
      response.writeHead(204).end()
      return
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405).end()
      return
    }
    const refused = refusal(keys, url, cookiesOf(request), Math.floor(Date.now() / 1000))
    if (refused !== undefined) {
      response.writeHead(403, { 'content-type': 'text/plain', 'x-refused': refused }).end(refused)
      return
    }
    const forwarded = [...url.searchParams].filter(([name]) => name.startsWith('response-'))
    const query = forwarded.length > 0 ? `?${new URLSearchParams(forwarded).toString()}` : ''
    const answer = await store.fetch(`${origin.endpoint}/${origin.bucket}${url.pathname}${query}`, {
      method: request.method,
    })
    const headers: Record<string, string> = {}
    answer.headers.forEach((value, name) => {
      if (name !== 'transfer-encoding' && name !== 'connection') headers[name] = value
    })
    response.writeHead(answer.status, headers)
    response.end(request.method === 'HEAD' ? undefined : Buffer.from(await answer.arrayBuffer()))
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
