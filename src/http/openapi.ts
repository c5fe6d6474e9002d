// What every operation's description shares: the problem schema, the security schemes, and how a
// JSON answer is described. The document itself is generated from the routes (app.ts).

import { toJsonSchema } from '@valibot/to-json-schema'
import { resolver, type DescribeRouteOptions } from 'hono-openapi'
import * as v from 'valibot'
import { PROBLEMS, type ErrorCode } from '../errors'
import { problemType } from './problem'

/**
 * An RFC 9457 problem whose `type` is one of `codes`' (the client's codes come from these). Built
 * once per set of codes: every route's description is evaluated when the isolate starts, although
 * only the document generator (Node, build time) reads the schemas.
 */
function problemSchema(codes: readonly ErrorCode[]) {
  const key = codes.join()
  let schema = problemSchemas.get(key)
  if (schema === undefined) problemSchemas.set(key, (schema = newProblemSchema(codes)))
  return schema
}
const problemSchemas = new Map<string, ReturnType<typeof newProblemSchema>>()

const newProblemSchema = (codes: readonly ErrorCode[]) =>
  v.pipe(
    v.object({
      type: v.picklist(codes.map(problemType)),
      title: v.pipe(v.string(), v.examples(DOCS ? ['Invalid request'] : [])),
      status: v.pipe(v.number(), v.integer(), v.examples(DOCS ? [400] : [])),
      detail: v.pipe(
        v.string(),
        v.examples(DOCS ? ['items.3.key: must be at most 1024 bytes of UTF-8'] : []),
      ),
      errors: v.optional(
        v.pipe(
          v.array(
            v.object({
              path: v.pipe(
                v.string(),
                v.description(
                  DOCS ? 'The field, as a dotted path into the request: `items.3.key`.' : '',
                ),
              ),
              message: v.string(),
            }),
          ),
          v.description(DOCS ? 'Every field at fault, up to 100.' : ''),
        ),
      ),
    }),
    v.description(DOCS ? 'An RFC 9457 problem. `type` is `urn:waybill:problem:<code>`.' : ''),
  )

/**
 * The answers every authenticated route may give besides its own (a JWT's key set, or the control
 * plane's D1, may be down).
 */
const AUTHENTICATED: readonly ErrorCode[] = [
  'unauthorized',
  'too_many_requests',
  'config_invalid',
  'auth_unavailable',
  'control_unavailable',
]

/** What a route that reads a JSON body may answer for the body alone. */
export const BAD_BODY = [
  'invalid_request',
  'payload_too_large',
  'unsupported_media_type',
] as const satisfies readonly ErrorCode[]

/** Responses for each problem an authenticated route may answer, by status. */
export function problems(...codes: ErrorCode[]) {
  return publicProblems(...codes, ...AUTHENTICATED)
}

/** Responses for each problem `codes` may answer, by status, and the 500 any route may. */
export function publicProblems(...codes: ErrorCode[]) {
  const byStatus = new Map<string, ErrorCode[]>()
  for (const code of new Set<ErrorCode>([...codes, 'internal'])) {
    const status = String(PROBLEMS[code].status)
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const responses: Record<string, { description: string; content: object }> = {}
  for (const [status, shared] of byStatus) {
    responses[status] = {
      description: shared.map((code) => PROBLEMS[code].title).join('; '),
      content: { 'application/problem+json': { schema: resolver(problemSchema(shared)) } },
    }
  }
  return responses
}

/** A 302 to a signed URL, with the cache rule its route earns (src/http/answer.ts). */
export const FOUND = {
  description: 'Found: `Location` is the signed URL',
  headers: {
    location: { schema: { type: 'string', format: 'uri' } },
    'cache-control': { schema: { type: 'string' } },
  },
} as const

/** A JSON answer described by `schema`. */
export function jsonContent(schema: v.GenericSchema, description: string) {
  return { description, content: { 'application/json': { schema: resolver(schema) } } }
}

/**
 * A JSON answer described by `schema`, or the same as NDJSON lines (`Accept: application/x-ndjson`,
 * src/http/answer.ts), which `lines` describes.
 */
export function jsonOrNdjsonContent(schema: v.GenericSchema, description: string, lines: string) {
  return {
    description,
    content: {
      ...jsonContent(schema, description).content,
      'application/x-ndjson': { schema: { type: 'string' as const, description: lines } },
    },
  }
}

/** OpenAPI path parameters from an object schema's fields: their JSON Schema and description. */
export function pathParameters(schema: {
  readonly entries: v.ObjectEntries
}): DescribeRouteOptions['parameters'] {
  const parameters = Object.entries(schema.entries).map(([name, field]) => {
    const { description, ...jsonSchema } = toJsonSchema(field, { errorMode: 'ignore' })
    return { name, in: 'path', required: true, description, schema: jsonSchema }
  })
  // The converter's JSON Schema type and openapi-types' SchemaObject describe the same JSON.
  return parameters as DescribeRouteOptions['parameters']
}

/** Who may call: an API key or a JWT as a bearer token, or a Cloudflare Access token. */
export const SECURITY: Record<string, string[]>[] = [
  { apiKey: [] },
  { jwt: [] },
  { access: [] },
  { accessCookie: [] },
]

type SecuritySchemes = Record<
  string,
  | { type: 'http'; scheme: string; bearerFormat?: string; description: string }
  | { type: 'apiKey'; in: 'header' | 'cookie'; name: string; description: string }
>

export const SECURITY_SCHEMES: SecuritySchemes = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (WAYBILL_API_KEYS): `Authorization: Bearer <key>`.',
  },
  jwt: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A JWT, when WAYBILL_AUTH.jwt is configured: `Authorization: Bearer <token>`.',
  },
  access: {
    type: 'apiKey',
    in: 'header',
    name: 'Cf-Access-Jwt-Assertion',
    description: 'A Cloudflare Access application token.',
  },
  accessCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'CF_Authorization',
    description: 'The Cloudflare Access cookie.',
  },
  jwtCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'wb_token',
    description:
      'The JWT in the cookie WAYBILL_AUTH.jwt.cookie names (redirects only; the name is configured).',
  },
}

/** The admin API's: an admin token, or Cloudflare Access in front of the admin hostname. */
export const ADMIN_SECURITY_SCHEMES: SecuritySchemes = {
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "An admin token (the admin Worker's WAYBILL_ADMIN_TOKENS), `Authorization: Bearer <token>`. Caller API keys and JWTs are refused.",
  },
  access: {
    type: 'apiKey',
    in: 'header',
    name: 'Cf-Access-Jwt-Assertion',
    description:
      'A Cloudflare Access application token of an identity in WAYBILL_AUTH.access.admins.',
  },
  accessCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'CF_Authorization',
    description: 'The Cloudflare Access cookie of such an identity.',
  },
}
