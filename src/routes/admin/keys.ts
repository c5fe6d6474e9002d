// /admin/v1/keys: API keys made through the admin API. Made with their grants (the key shown once,
// only its SHA-256 stored), listed with their last use, shown with every grant that reaches them,
// relabeled or given another expiry, rotated with an overlap.

import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import { Answer } from '../../http/answer'
import { jsonBody } from '../../middleware/json-body'
import { publicProblems } from '../../http/openapi'
import type { AdminAppEnv, AdminRouteDeps } from '../../middleware/types'
import { validBody, validParams, validQuery } from '../../middleware/validate'
import {
  KeyAnswer,
  KeyCreateBody,
  KeyCreatedAnswer,
  KeyListAnswer,
  KeyParams,
  KeyUpdateBody,
  KeyUpdatedAnswer,
  PageQuery,
  RotateBody,
  RotatedAnswer,
} from '../../control/admin-schemas'
import { createKey, getKey, listKeys, patchKey, rotate } from '../../services/admin/keys'
import { IDEMPOTENCY_HEADER } from './idempotency'
import { ADMIN_PROBLEMS, ADMIN_SECURITY, BAD_BODY, byId, contextOf } from './shared'

const KEY_CREATED = new Answer(KeyCreatedAnswer, 'The key (shown once) and its grants', 201)
const KEY_LIST = new Answer(KeyListAnswer, 'One page of keys, by id')
const KEY = new Answer(KeyAnswer, 'The key, and every grant that reaches it')
const KEY_UPDATED = new Answer(KeyUpdatedAnswer, 'The key as it is now')
const ROTATED = new Answer(RotatedAnswer, 'The new secret (shown once)')

export function keyRoutes({ clock, adminAuthenticated, idempotent }: AdminRouteDeps) {
  const ctx = (c: Context<AdminAppEnv>) => contextOf(c, clock)
  return new Hono<AdminAppEnv>()
    .post(
      '/',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminCreateKey',
              summary: 'Make an API key, with its grants; the key is in this answer only',
              description:
                'Only its SHA-256 is stored. Grants are as in WAYBILL_GRANTS without "to" (it is `apiKey:<id>`), checked by the same schema. An id already taken (here or in WAYBILL_API_KEYS) is a 409. A grant on an origin not configured is a 404; what its origin cannot hold (a prefix on an origin with keys "any", an uploadKey outside the prefix) a 403, as the caller\'s routes answer what an origin cannot serve. Takes an `Idempotency-Key`: a retry gets the same key.',
              security: ADMIN_SECURITY,
              parameters: [IDEMPOTENCY_HEADER],
              responses: {
                201: {
                  ...KEY_CREATED.response,
                  links: {
                    adminGetKey: byId('adminGetKey', 'The key as stored.'),
                    adminUpdateKey: byId('adminUpdateKey', 'Relabel it, or change its expiry.'),
                    adminRotateKey: byId('adminRotateKey', 'A new secret for it.'),
                  },
                },
                ...publicProblems(...BAD_BODY, 'not_found', 'conflict', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      idempotent,
      jsonBody(),
      validBody(KeyCreateBody),
      async (c) => KEY_CREATED.json(c, await createKey(ctx(c), c.req.valid('json'))),
    )
    .get(
      '/',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminListKeys',
              summary: 'The API keys made through the admin API, with their last use',
              security: ADMIN_SECURITY,
              responses: {
                200: KEY_LIST.response,
                ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validQuery(PageQuery),
      async (c) => KEY_LIST.json(c, await listKeys(ctx(c), c.req.valid('query'))),
    )
    .get(
      '/:id',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminGetKey',
              summary: 'One API key: its secrets by prefix, expiry, revocation, last use, grants',
              description:
                'Its grants are every grant that reaches it: the env’s and the stored ones, those naming it and those naming anyone (`*`). An API key holds no role or email, so grants naming those never reach it.',
              security: ADMIN_SECURITY,
              responses: {
                200: KEY.response,
                ...publicProblems('invalid_request', 'not_found', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validParams(KeyParams),
      async (c) => KEY.json(c, await getKey(ctx(c), c.req.valid('param').id)),
    )
    .patch(
      '/:id',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminUpdateKey',
              summary: "Relabel a key, or change its expiry; what the body doesn't name stays",
              description:
                'A new expiry reaches every isolate within the control plane’s bound; what the key issued answers to it (its links answer 410 once it has expired). Audited, with the key before and after.',
              security: ADMIN_SECURITY,
              responses: {
                200: KEY_UPDATED.response,
                ...publicProblems(...BAD_BODY, 'not_found', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validParams(KeyParams),
      jsonBody(),
      validBody(KeyUpdateBody),
      async (c) =>
        KEY_UPDATED.json(c, await patchKey(ctx(c), c.req.valid('param').id, c.req.valid('json'))),
    )
    .post(
      '/:id/rotate',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminRotateKey',
              summary: 'A new secret for a key; the old one keeps working for the overlap',
              description:
                'A revoked key is a 409: make a new one instead. Takes an `Idempotency-Key`: a retry gets the same secret.',
              security: ADMIN_SECURITY,
              parameters: [IDEMPOTENCY_HEADER],
              responses: {
                200: ROTATED.response,
                ...publicProblems(...BAD_BODY, 'not_found', 'conflict', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      idempotent,
      validParams(KeyParams),
      jsonBody(),
      validBody(RotateBody),
      async (c) => {
        const { id } = c.req.valid('param')
        return ROTATED.json(c, await rotate(ctx(c), id, c.req.valid('json').overlapS))
      },
    )
}
