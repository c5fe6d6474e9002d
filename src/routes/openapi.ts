// The OpenAPI 3.1 description of the HTTP API, served at GET /openapi.json. A test checks that every
// route the app answers is described here and the other way round.

import {
  DEFAULT_EXPIRES_S,
  DEFAULT_LIST_LIMIT,
  DEFAULT_MAX_BATCH,
  MAX_LIST_LIMIT,
  MAX_LIST_PREFIXES,
  MAX_SIGNING_WINDOW_S,
  MAX_PART_SIZE_BYTES,
  MIN_PART_SIZE_BYTES,
  MAX_EXPIRES_S,
  MAX_KEY_BYTES,
  MIN_EXPIRES_S,
} from '../config/limits'
import { RESPONSE_OVERRIDE_FIELDS } from '../core/s3/presign'

const problem = {
  description: 'A problem (RFC 9457).',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
}

const key = {
  type: 'string',
  minLength: 1,
  description: `An object key: any Unicode without lone surrogates, at most ${MAX_KEY_BYTES} bytes of UTF-8.`,
  examples: ['photos/2026/cat picture.jpg'],
}

const signingWindow = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_SIGNING_WINDOW_S,
  description:
    "Seconds. Signs at the start of the current window for window + expiresIn, so every request in the window gets byte-identical URLs (cacheable). expiresIn + signingWindow must fit the caller's grant. Default: the origin's signingWindow (0: sign at the request time).",
}

const cacheHeaders = {
  'Cache-Control': {
    description:
      'private, max-age = the shortest remaining URL life less 60 s (no-store when nothing is left).',
    schema: { type: 'string' },
  },
  ETag: { description: 'The SHA-256 of the body.', schema: { type: 'string' } },
}

const responseOverrides = {
  type: 'object',
  additionalProperties: false,
  description:
    "Response header overrides S3 applies (GET and HEAD only). Printable ASCII; a Unicode filename goes in filename*=UTF-8''<percent-encoded>.",
  properties: Object.fromEntries(
    RESPONSE_OVERRIDE_FIELDS.map((name) => [
      name,
      { type: 'string', minLength: 1, maxLength: 1024 },
    ]),
  ),
}

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'waybill',
    version: '1',
    description:
      'Authorizes a caller, then mints signed URLs for private objects. Every signature needs a grant (WAYBILL_GRANTS) for the caller; a batch is all or nothing. Unknown fields in request bodies are rejected (400).',
  },
  components: {
    securitySchemes: {
      apiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key whose SHA-256 is in WAYBILL_API_KEYS.',
      },
      jwt: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'A JWT from the issuer in WAYBILL_AUTH.jwt (RS256, PS256, ES256, EdDSA via JWKS, or HS256).',
      },
      jwtCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'wb_token',
        description:
          'The same JWT in the cookie named by WAYBILL_AUTH.jwt.cookie (the name here is an example). Redirects only.',
      },
      access: {
        type: 'apiKey',
        in: 'header',
        name: 'Cf-Access-Jwt-Assertion',
        description: 'A Cloudflare Access application token (WAYBILL_AUTH.access).',
      },
      accessCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'CF_Authorization',
        description: 'The Cloudflare Access token as its cookie.',
      },
    },
    schemas: {
      Problem: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail'],
        properties: {
          type: { type: 'string', examples: ['urn:waybill:problem:invalid_request'] },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          errors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['path', 'message'],
              properties: {
                path: { type: 'string', examples: ['items.3.key'] },
                message: { type: 'string' },
              },
            },
          },
        },
      },
      SignRequest: {
        type: 'object',
        additionalProperties: false,
        required: ['origin'],
        description: 'Exactly one of keys and items.',
        properties: {
          origin: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' },
          method: { enum: ['GET', 'HEAD', 'PUT', 'DELETE'], default: 'GET' },
          expiresIn: {
            type: 'integer',
            minimum: MIN_EXPIRES_S,
            maximum: MAX_EXPIRES_S,
            default: DEFAULT_EXPIRES_S,
            description: 'Seconds. The default is WAYBILL_DEFAULT_EXPIRES_S.',
          },
          keys: { type: 'array', minItems: 1, maxItems: DEFAULT_MAX_BATCH, items: key },
          signingWindow,
          debug: {
            type: 'boolean',
            default: false,
            description:
              'Also return, per URL, what was signed: S3 canonicalRequest and stringToSign, or the CloudFront policy. Needs a grant with the "debug" action covering every key.',
          },
          policy: {
            enum: ['canned', 'wildcard'],
            default: 'canned',
            description:
              'CloudFront origins only. "wildcard" covers the batch with one custom policy for the longest common key prefix (one signature for every URL); it needs a grant with "wildcard": true covering that prefix.',
          },
          items: {
            type: 'array',
            minItems: 1,
            maxItems: DEFAULT_MAX_BATCH,
            description: `At most WAYBILL_MAX_BATCH entries (default ${DEFAULT_MAX_BATCH}).`,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['key'],
              properties: {
                key,
                versionId: { type: 'string', description: 'GET, HEAD and DELETE only.' },
                response: responseOverrides,
              },
            },
          },
        },
      },
      SignedUrl: {
        type: 'object',
        required: ['key', 'url'],
        properties: {
          key: { type: 'string' },
          url: { type: 'string', format: 'uri' },
          debug: {
            type: 'object',
            description: 'Only with "debug": true.',
            properties: {
              canonicalRequest: { type: 'string' },
              stringToSign: { type: 'string' },
              policy: { type: 'string' },
            },
          },
        },
      },
      ListedItem: {
        type: 'object',
        required: ['key', 'size', 'etag', 'lastModified'],
        properties: {
          key: { type: 'string' },
          size: { type: 'integer' },
          etag: { type: 'string' },
          lastModified: { type: 'string', format: 'date-time' },
          url: {
            type: 'string',
            format: 'uri',
            description: 'Absent when the caller may list but not read the object.',
          },
        },
      },
      SignResponse: {
        type: 'object',
        required: ['origin', 'method', 'expiresAt', 'urls'],
        properties: {
          origin: { type: 'string' },
          method: { type: 'string' },
          expiresAt: { type: 'string', format: 'date-time' },
          urls: { type: 'array', items: { $ref: '#/components/schemas/SignedUrl' } },
        },
      },
    },
  },
  paths: {
    '/healthz': {
      get: {
        summary: 'Liveness and configuration check (no authentication).',
        responses: {
          '200': {
            description: 'The configuration is valid.',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { ok: { const: true } } },
              },
            },
          },
          '503': problem,
        },
      },
    },
    '/openapi.json': {
      get: {
        summary: 'This document.',
        responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': {} } } },
      },
    },
    '/v1/sign': {
      post: {
        summary:
          'Signed URLs for a batch of keys, in input order: S3 presigned URLs, or CloudFront signed URLs.',
        security: [{ apiKey: [] }, { jwt: [] }, { access: [] }, { accessCookie: [] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/SignRequest' } } },
        },
        responses: {
          '200': {
            description:
              'The URLs. With `Accept: application/x-ndjson`, one SignedUrl per line, streamed; the expiry is in the Waybill-Expires-At header.',
            headers: {
              'Waybill-Expires-At': { schema: { type: 'string', format: 'date-time' } },
              ...cacheHeaders,
            },
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/SignResponse' } },
              'application/x-ndjson': { schema: { $ref: '#/components/schemas/SignedUrl' } },
            },
          },
          '400': problem,
          '401': problem,
          '403': problem,
          '404': problem,
          '405': problem,
          '413': problem,
          '415': problem,
          '429': problem,
          '503': problem,
        },
      },
    },
    '/v1/cookies': {
      post: {
        summary:
          'CloudFront signed cookies for everything under a key prefix (needs a wildcard read grant).',
        security: [{ apiKey: [] }, { jwt: [] }, { access: [] }, { accessCookie: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['origin'],
                properties: {
                  origin: { type: 'string' },
                  prefix: { type: 'string', default: '', examples: ['users/alice/'] },
                  expiresIn: { type: 'integer', minimum: MIN_EXPIRES_S, maximum: MAX_EXPIRES_S },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description:
              'Set-Cookie headers for CloudFront-Policy, -Signature, -Key-Pair-Id (and -Hash-Algorithm for SHA-256), with the same values in the body.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    origin: { type: 'string' },
                    resource: { type: 'string' },
                    expiresAt: { type: 'string', format: 'date-time' },
                    cookies: { type: 'object', additionalProperties: { type: 'string' } },
                  },
                },
              },
            },
          },
          '400': problem,
          '401': problem,
          '403': problem,
          '405': problem,
          '413': problem,
          '415': problem,
          '429': problem,
          '503': problem,
        },
      },
    },
    '/v1/redirect/{origin}/{key}': {
      get: {
        summary: 'Redirect to a fresh presigned GET URL for one object.',
        security: [
          { apiKey: [] },
          { jwt: [] },
          { jwtCookie: [] },
          { access: [] },
          { accessCookie: [] },
        ],
        parameters: [
          { name: 'origin', in: 'path', required: true, schema: { type: 'string' } },
          {
            name: 'key',
            in: 'path',
            required: true,
            description:
              'The rest of the path, percent-decoded once: slashes stay, %2F is a literal slash in the key. Keys with "." or ".." segments cannot be expressed in a URL path.',
            schema: key,
          },
          {
            name: 'expiresIn',
            in: 'query',
            schema: { type: 'integer', minimum: MIN_EXPIRES_S, maximum: MAX_EXPIRES_S },
          },
        ],
        responses: {
          '302': {
            description:
              'Location is the signed URL. Cache-Control is private with a max-age 60 s shorter than the URL lives, or no-store.',
            headers: {
              Location: { schema: { type: 'string', format: 'uri' } },
              'Cache-Control': { schema: { type: 'string' } },
            },
          },
          '400': problem,
          '401': problem,
          '403': problem,
          '404': problem,
          '405': problem,
          '429': problem,
          '503': problem,
        },
      },
    },
    '/v1/list/{origin}': {
      get: {
        summary:
          'A signed listing: ListObjectsV2 under each prefix, with a presigned GET URL (or CloudFront URL) per object the caller may read. Needs a list grant containing every prefix.',
        security: [{ apiKey: [] }, { jwt: [] }, { access: [] }, { accessCookie: [] }],
        parameters: [
          {
            name: 'origin',
            in: 'path',
            required: true,
            description: 'An S3 origin, or a CloudFront origin with listFrom.',
            schema: { type: 'string' },
          },
          {
            name: 'prefix',
            in: 'query',
            description: `Repeat for several prefixes (at most ${MAX_LIST_PREFIXES}), listed concurrently; results come in the order given.`,
            schema: { type: 'array', items: { type: 'string' } },
            style: 'form',
            explode: true,
          },
          { name: 'delimiter', in: 'query', schema: { type: 'string', examples: ['/'] } },
          {
            name: 'limit',
            in: 'query',
            description: 'Entries (objects and common prefixes) in this response, across S3 pages.',
            schema: {
              type: 'integer',
              minimum: 1,
              maximum: MAX_LIST_LIMIT,
              default: DEFAULT_LIST_LIMIT,
            },
          },
          {
            name: 'cursor',
            in: 'query',
            description: 'The cursor of the previous page (opaque).',
            schema: { type: 'string' },
          },
          {
            name: 'expiresIn',
            in: 'query',
            schema: { type: 'integer', minimum: MIN_EXPIRES_S, maximum: MAX_EXPIRES_S },
          },
          { name: 'signingWindow', in: 'query', schema: signingWindow },
        ],
        responses: {
          '200': {
            description:
              'With `Accept: application/x-ndjson`: one ListedItem per line, then a line { prefixes, cursor }.',
            headers: cacheHeaders,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    origin: { type: 'string' },
                    items: { type: 'array', items: { $ref: '#/components/schemas/ListedItem' } },
                    prefixes: { type: 'array', items: { type: 'string' } },
                    cursor: { type: ['string', 'null'] },
                    expiresAt: { type: ['string', 'null'], format: 'date-time' },
                  },
                },
              },
            },
          },
          '304': { description: 'If-None-Match matched the ETag.' },
          '400': problem,
          '401': problem,
          '403': problem,
          '405': problem,
          '429': problem,
          '502': problem,
          '503': problem,
        },
      },
    },
    '/v1/uploads': {
      post: {
        summary:
          'Permission to upload one object straight to the bucket: an exact PUT URL, a POST policy form, or a multipart upload with part URLs. Needs a write grant that admits the key, content type and size.',
        security: [{ apiKey: [] }, { jwt: [] }, { access: [] }, { accessCookie: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['origin', 'contentType'],
                description: 'Exactly one of key and keyPrefix (keyPrefix: mode "post" only).',
                properties: {
                  origin: { type: 'string' },
                  mode: { enum: ['put', 'post', 'multipart'], default: 'put' },
                  key,
                  keyPrefix: {
                    type: 'string',
                    description: 'POST only: the form may name any key starting with this.',
                  },
                  contentType: {
                    type: 'string',
                    examples: ['image/png'],
                    description:
                      'Signed: the upload must send exactly this. POST also takes a family, "image/*".',
                  },
                  contentLength: {
                    type: 'integer',
                    minimum: 0,
                    description:
                      "Exact size in bytes (signed). Required for multipart, and for PUT when the caller's grant limits the size.",
                  },
                  checksumSha256: {
                    type: 'string',
                    description: 'PUT only: base64 SHA-256 of the file; the store checks it.',
                  },
                  ifNoneMatch: {
                    enum: [true, false, '*'],
                    description: 'PUT only: refuse to overwrite an existing object (412).',
                  },
                  metadata: {
                    type: 'object',
                    additionalProperties: { type: 'string' },
                    description: 'x-amz-meta-<name> values (printable ASCII, 2 KiB in all).',
                  },
                  expiresIn: { type: 'integer', minimum: MIN_EXPIRES_S, maximum: MAX_EXPIRES_S },
                  partSize: {
                    type: 'integer',
                    minimum: MIN_PART_SIZE_BYTES,
                    maximum: MAX_PART_SIZE_BYTES,
                    description:
                      'Multipart only. Default: 5 MiB, grown so the parts fit in 10,000.',
                  },
                  successActionStatus: { enum: [200, 201, 204], description: 'POST only.' },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description:
              'PUT: { method: "PUT", url, headers, expiresAt } (send exactly these headers; Content-Length comes from the body). POST: { method: "POST", url, fields, expiresAt } (a multipart/form-data POST of the fields, then the file last, as "file"). Multipart: { method: "MULTIPART", key, uploadId, partSize, partCount, parts: [{ partNumber, url }], expiresAt } with the first 100 part URLs; each part URL pins its exact size.',
            content: { 'application/json': {} },
          },
          '400': problem,
          '401': problem,
          '403': problem,
          '405': problem,
          '413': problem,
          '415': problem,
          '429': problem,
          '502': problem,
          '503': problem,
        },
      },
    },
    '/v1/uploads/multipart/parts': {
      post: {
        summary: 'More part URLs for a multipart upload in progress.',
        security: [{ apiKey: [] }, { jwt: [] }, { access: [] }, { accessCookie: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  origin: { type: 'string' },
                  key,
                  uploadId: { type: 'string' },
                  partNumbers: {
                    type: 'array',
                    items: { type: 'integer', minimum: 1, maximum: 10000 },
                  },
                  contentLength: { type: 'integer', minimum: 0 },
                  partSize: { type: 'integer', minimum: MIN_PART_SIZE_BYTES },
                  expiresIn: { type: 'integer', minimum: MIN_EXPIRES_S, maximum: MAX_EXPIRES_S },
                },
              },
            },
          },
        },
        responses: {
          '200': { description: '{ parts: [{ partNumber, url }], expiresAt }' },
          '400': problem,
          '401': problem,
          '403': problem,
          '404': problem,
          '502': problem,
        },
      },
    },
    '/v1/uploads/multipart/complete': {
      post: {
        summary: 'CompleteMultipartUpload with the ETags the part uploads returned.',
        security: [{ apiKey: [] }, { jwt: [] }, { access: [] }, { accessCookie: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  origin: { type: 'string' },
                  key,
                  uploadId: { type: 'string' },
                  parts: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: { partNumber: { type: 'integer' }, etag: { type: 'string' } },
                    },
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': { description: '{ key, etag }' },
          '400': problem,
          '401': problem,
          '403': problem,
          '404': problem,
          '502': problem,
        },
      },
    },
    '/v1/uploads/multipart/abort': {
      post: {
        summary: 'AbortMultipartUpload.',
        security: [{ apiKey: [] }, { jwt: [] }, { access: [] }, { accessCookie: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  origin: { type: 'string' },
                  key,
                  uploadId: { type: 'string' },
                },
              },
            },
          },
        },
        responses: {
          '204': { description: '204: aborted' },
          '400': problem,
          '401': problem,
          '403': problem,
          '404': problem,
          '502': problem,
        },
      },
    },
  },
} as const
