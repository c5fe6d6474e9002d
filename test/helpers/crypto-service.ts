// Runs in Node (started by the global setup): test keys made fresh for each run, and a small HTTP
// service the workerd tests call to check CloudFront signatures with node:crypto and OpenSSL, and
// to sign the same inputs with @aws-sdk/cloudfront-signer (which needs node:crypto).

import { getSignedCookies, getSignedUrl } from '@aws-sdk/cloudfront-signer'
import { execFileSync } from 'node:child_process'
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestKeys } from './provided-context'

export function makeTestKeys(): TestKeys {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const small = generateKeyPairSync('rsa', { modulusLength: 1024 })
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
  return {
    rsaPkcs1: rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
    rsaPkcs8: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    rsaPublic: rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    ecSec1: ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string,
    ecPkcs8: ec.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    ecPublic: ec.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    rsa1024: small.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
    ecP384: p384.privateKey.export({ type: 'sec1', format: 'pem' }) as string,
  }
}

/** CloudFront base64 back to bytes. */
function fromCloudFrontBase64(value: string): Buffer {
  return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64')
}

type Handler = (body: Record<string, unknown>) => unknown

const handlers: Record<string, Handler> = {
  // { publicKey, data, signature (CloudFront base64), hash: 'SHA1' | 'SHA256' } → { ok }
  '/verify': (body) => ({
    ok: verify(
      body.hash === 'SHA256' ? 'sha256' : 'sha1',
      Buffer.from(body.data as string),
      createPublicKey(body.publicKey as string),
      fromCloudFrontBase64(body.signature as string),
    ),
  }),
  // The same with the openssl command line, as CloudFront's documentation does it.
  '/openssl-verify': (body) => {
    const dir = mkdtempSync(join(tmpdir(), 'waybill-openssl-'))
    try {
      writeFileSync(join(dir, 'pub.pem'), body.publicKey as string)
      writeFileSync(join(dir, 'data'), body.data as string)
      writeFileSync(join(dir, 'sig.der'), fromCloudFrontBase64(body.signature as string))
      const digest = body.hash === 'SHA256' ? '-sha256' : '-sha1'
      try {
        const out = execFileSync(
          'openssl',
          ['dgst', digest, '-verify', 'pub.pem', '-signature', 'sig.der', 'data'],
          {
            cwd: dir,
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        )
        return { ok: out.trim() === 'Verified OK', output: out.trim() }
      } catch (error) {
        const failed = error as { stdout?: string; stderr?: string; code?: string }
        if (failed.code === 'ENOENT') throw new Error('openssl is not installed')
        return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`.trim() }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
  // @aws-sdk/cloudfront-signer as the reference: { url, keyPairId, privateKey, dateLessThan (epoch s), policy?, algorithm? }
  '/sdk/url': (body) => ({
    url: getSignedUrl({
      url: body.url as string,
      keyPairId: body.keyPairId as string,
      privateKey: body.privateKey as string,
      dateLessThan:
        body.dateLessThan === undefined
          ? undefined
          : new Date((body.dateLessThan as number) * 1000),
      policy: body.policy as string | undefined,
      algorithm: body.algorithm as 'SHA1' | 'SHA256' | undefined,
    } as Parameters<typeof getSignedUrl>[0]),
  }),
  '/sdk/cookies': (body) => ({
    cookies: getSignedCookies({
      keyPairId: body.keyPairId as string,
      privateKey: body.privateKey as string,
      policy: body.policy as string,
      algorithm: body.algorithm as 'SHA1' | 'SHA256' | undefined,
    }),
  }),
}

export function startCryptoService(): Promise<{ url: string; stop: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const handler = handlers[request.url ?? '']
      try {
        if (handler === undefined) throw new Error(`no handler for ${request.url}`)
        const result = handler(
          JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        )
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result))
      } catch (error) {
        response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error))
      }
    })
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      resolve({
        url: `http://127.0.0.1:${port}`,
        stop: () => new Promise((done) => server.close(() => done())),
      })
    })
  })
}
