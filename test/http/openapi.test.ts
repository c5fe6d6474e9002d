// The OpenAPI documents, one per Worker: generated from the route schemas, with the limits the code
// enforces, an operationId, a summary and security on every operation, the committed copies up to
// date, and each copy what its Worker's GET /openapi.json serves.

import { describe, expect, it } from 'vitest'
import committedAdmin from '../../docs/admin-openapi.json'
import committed from '../../docs/openapi.json'
import { createAdminApp } from '../../src/admin/app'
import { createApp } from '../../src/app'
import { MAX_MEDIA_TYPE_CHARS } from '../../src/core/media-type'
import { generateAdminOpenApi, generateOpenApi } from '../../src/openapi'
import { TEST_ASSETS } from '../helpers/routes'
import {
  MAX_BATCH_CEILING,
  MAX_EXPIRES_S,
  MAX_LIST_LIMIT,
  MAX_OVERRIDE_CHARS,
  MAX_SIGNING_WINDOW_S,
} from '../../src/limits'
import { PROBLEMS, type ErrorCode } from '../../src/errors'

interface Schema {
  enum?: unknown[]
  properties?: Record<string, Schema>
  items?: Schema
  maxItems?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  required?: string[]
  uniqueItems?: boolean
  oneOf?: Schema[]
  allOf?: Schema[]
  not?: Schema
  const?: unknown
}
interface Operation {
  operationId?: string
  summary?: string
  security?: unknown[]
  parameters?: { name: string; schema: Schema }[]
  requestBody?: { content: Record<string, { schema: Schema }> }
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>
}
interface Document {
  paths: Record<string, Record<string, Operation>>
}

/** The document the routes describe today, as `npm run openapi` writes it (JSON). */
async function generated(generate = generateOpenApi): Promise<Document> {
  return JSON.parse(JSON.stringify(await generate())) as Document
}

const PLANES = [
  { name: 'data plane', generate: generateOpenApi, committed, app: createApp },
  {
    name: 'admin plane',
    generate: generateAdminOpenApi,
    committed: committedAdmin,
    app: createAdminApp,
  },
] as const

const operations = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  )

describe.each(PLANES)('the $name document', ({ generate, committed: document, app }) => {
  it('is the one committed (npm run openapi regenerates it)', async () => {
    expect(await generated(generate)).toEqual(document)
  })

  it('is what GET /openapi.json serves, from the static assets', async () => {
    const assets = {
      fetch: () => Promise.resolve(Response.json(document)),
      connect: TEST_ASSETS.connect.bind(TEST_ASSETS),
    } as Fetcher
    const response = await app().request('/openapi.json', {}, { ASSETS: assets })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await response.json()).toEqual(document)
  })

  it('is a 404 problem, not a 500, on a deployment without the static assets', async () => {
    for (const path of ['/openapi.json', '/docs']) {
      const response = await app().request(path)
      expect(response.status, path).toBe(404)
      expect(response.headers.get('content-type'), path).toBe('application/problem+json')
    }
  })

  it('gives every operation an operationId, a summary and its security', async () => {
    const ids = new Set<string>()
    for (const { path, method, operation } of operations(await generated(generate))) {
      const where = `${method} ${path}`
      expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z]+$/)
      expect(ids.has(operation.operationId!), where).toBe(false)
      ids.add(operation.operationId!)
      expect(operation.summary, where).toBeTruthy()
      expect(Array.isArray(operation.security), where).toBe(true)
    }
  })

  it('describes every problem as problem+json naming each field', async () => {
    for (const { path, method, operation } of operations(await generated(generate))) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue
        const schema = response.content?.['application/problem+json']?.schema
        expect(schema, `${method} ${path} ${status}`).toBeDefined()
        expect(schema!.properties!.errors!.items!.properties!.path).toBeDefined()
      }
    }
  })
})

describe('the OpenAPI documents together', () => {
  it('never give two operations one operationId', async () => {
    const ids = (await Promise.all(PLANES.map(({ generate }) => generated(generate))))
      .flatMap(operations)
      .map(({ operation }) => operation.operationId)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("name each problem's codes, and every code some route answers with", async () => {
    const named = new Set<unknown>()
    for (const { generate } of PLANES) {
      for (const { path, method, operation } of operations(await generated(generate))) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const types =
            response.content?.['application/problem+json']?.schema.properties?.type?.enum
          if (types === undefined) continue
          for (const type of types) {
            const code = String(type).replace('urn:waybill:problem:', '') as ErrorCode
            expect(PROBLEMS[code].status, `${method} ${path} ${status}: ${String(type)}`).toBe(
              Number(status),
            )
            named.add(code)
          }
        }
      }
    }
    expect([...named].sort()).toEqual(Object.keys(PROBLEMS).sort())
  })
})

describe('the data plane document', () => {
  it('states the limits the code enforces', async () => {
    const document = await generated()
    const body = document.paths['/v1/sign']!.post!.requestBody!.content['application/json']!.schema
    // One option per method: GET and HEAD, PUT, DELETE.
    expect(body.oneOf).toHaveLength(3)
    for (const option of body.oneOf!) {
      expect(option.properties!.keys!.maxItems).toBe(MAX_BATCH_CEILING)
      expect(option.properties!.items!.maxItems).toBe(MAX_BATCH_CEILING)
      expect(option.properties!.expiresIn!.maximum).toBe(MAX_EXPIRES_S)
      expect(option.properties!.signingWindow!.maximum).toBe(MAX_SIGNING_WINDOW_S)
    }
    const overrides = body.oneOf![0]!.properties!.items!.items!.properties!.response!.properties!
    for (const [name, field] of Object.entries(overrides)) {
      expect(field.maxLength).toBe(
        name === 'contentType' ? MAX_MEDIA_TYPE_CHARS : MAX_OVERRIDE_CHARS,
      )
    }
    const limit = document.paths['/v1/list/{origin}']!.get!.parameters!.find(
      (parameter) => parameter.name === 'limit',
    )
    expect(limit!.schema.maximum).toBe(MAX_LIST_LIMIT)
  })

  it('states the rules across fields that the code enforces', async () => {
    const document = await generated()
    const body = (path: string) =>
      document.paths[path]!.post!.requestBody!.content['application/json']!.schema
    // Only GET and HEAD take download and inline, and never both.
    const [read, put, remove] = body('/v1/sign').oneOf!
    expect(read!.properties!.items!.items!.allOf).toContainEqual({
      not: { required: ['download', 'inline'] },
    })
    for (const write of [put!, remove!]) {
      expect(write.properties!.items!.items!.properties!.download).toEqual({ not: {} })
    }
    expect(body('/v1/links').properties!.items!.items!.allOf).toContainEqual({
      not: { required: ['download', 'inline'] },
    })
    // A key is never empty, wherever a body names one.
    for (const path of [
      '/v1/uploads/multipart/list',
      '/v1/uploads/multipart/parts',
      '/v1/uploads/multipart/complete',
      '/v1/uploads/multipart/abort',
      '/v1/uploads/complete',
    ]) {
      expect(body(path).properties!.key!.minLength, path).toBe(1)
    }
    // One upload, or items: never a key beside items; one option per mode.
    const uploads = body('/v1/uploads')
    expect(uploads.oneOf!.map((option) => option.properties!.mode!.const)).toEqual([
      'put',
      'post',
      'multipart',
    ])
    const [batch] = uploads.allOf![0]!.oneOf!
    expect(batch!.required).toEqual(['items'])
    expect(batch!.not!).toHaveProperty('anyOf', expect.arrayContaining([{ required: ['key'] }]))
    // Each prefix once.
    const prefix = document.paths['/v1/list/{origin}']!.get!.parameters!.find(
      (parameter) => parameter.name === 'prefix',
    )
    expect(prefix!.schema.uniqueItems).toBe(true)
  })

  it('answers uploads with a oneOf keyed on mode, one or a batch of them', async () => {
    const document = await generated()
    type OneOf = { oneOf: { properties: { mode: { const: string } } }[] }
    const answer = document.paths['/v1/uploads']!.post!.responses['200']!.content![
      'application/json'
    ]!.schema as {
      anyOf: [OneOf, { properties: { uploads: { items: OneOf } }; required: string[] }]
    }
    const [one, batch] = answer.anyOf
    const modes = (schema: OneOf) => schema.oneOf.map((option) => option.properties.mode.const)
    expect(modes(one)).toEqual(['put', 'post', 'multipart'])
    expect(modes(batch.properties.uploads.items)).toEqual(['put', 'post', 'multipart'])
    expect(batch.required).toEqual(['uploads'])
  })
})
