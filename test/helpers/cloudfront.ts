// Calls to the Node-side crypto service (test/helpers/crypto-service.ts) from tests running in workerd.

import { inject } from 'vitest'

const service = inject('cryptoService')

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${service}${path}`, { method: 'POST', body: JSON.stringify(body) })
  if (!response.ok)
    throw new Error(`crypto service ${path}: ${response.status} ${await response.text()}`)
  return await response.json<T>()
}

export type Hash = 'SHA1' | 'SHA256'

/** node:crypto's verdict on a CloudFront signature (CloudFront base64) over `data`. */
export async function nodeVerifies(
  publicKey: string,
  data: string,
  signature: string,
  hash: Hash,
): Promise<boolean> {
  return (await post<{ ok: boolean }>('/verify', { publicKey, data, signature, hash })).ok
}

/** `openssl dgst -sha1|-sha256 -verify pub.pem -signature sig.der data`. */
export async function opensslVerifies(
  publicKey: string,
  data: string,
  signature: string,
  hash: Hash,
): Promise<{ ok: boolean; output: string }> {
  return post('/openssl-verify', { publicKey, data, signature, hash })
}

export async function sdkSignedUrl(input: {
  url?: string
  policy?: string
  keyPairId: string
  privateKey: string
  dateLessThan?: number
  algorithm?: Hash
}): Promise<string> {
  return (await post<{ url: string }>('/sdk/url', input)).url
}

export async function sdkSignedCookies(input: {
  policy: string
  keyPairId: string
  privateKey: string
  algorithm?: Hash
}): Promise<Record<string, string>> {
  return (await post<{ cookies: Record<string, string> }>('/sdk/cookies', input)).cookies
}

/** The policy a signed URL was signed over, rebuilt from its parameters. */
export function policyOfUrl(signedUrl: string): { policy: string; signature: string } {
  const url = new URL(signedUrl)
  const signature = url.searchParams.get('Signature')!
  const encodedPolicy = url.searchParams.get('Policy')
  if (encodedPolicy !== null) {
    const policy = atob(encodedPolicy.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'))
    return {
      policy: new TextDecoder().decode(Uint8Array.from(policy, (c) => c.charCodeAt(0))),
      signature,
    }
  }
  const expires = url.searchParams.get('Expires')!
  const resource = signedUrl.slice(
    0,
    signedUrl.indexOf(signedUrl.includes('&Expires=') ? '&Expires=' : '?Expires='),
  )
  return {
    policy: `{"Statement":[{"Resource":${JSON.stringify(resource)},"Condition":{"DateLessThan":{"AWS:EpochTime":${expires}}}}]}`,
    signature,
  }
}
