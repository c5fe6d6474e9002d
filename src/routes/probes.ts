// What each Worker answers without authentication, in the same shape on both planes: liveness
// (/healthz: the configuration parses), readiness (/readyz: what it depends on answers), its
// OpenAPI document and its reference page (files made at build time: src/http/common.ts asset).

import type { Context, Env, Hono, MiddlewareHandler } from 'hono'
import { describeRoute } from 'hono-openapi'
import * as v from 'valibot'
import { readiness, READY, type Check } from '../control/readiness'
import { Answer } from '../http/answer'
import { asset } from '../http/common'
import { publicProblems } from '../http/openapi'

/** `GET /healthz`'s answer: its schema, in the document and the handler's type. */
const HEALTH = new Answer(v.object({ ok: v.literal(true) }), 'Ready')

export interface Probes<E extends Env> {
  /** The plane's word in its operation ids: "" (getHealth) or "Admin" (getAdminHealth). */
  readonly plane: '' | 'Admin'
  /** Loads the plane's configuration: an invalid one answers 503 naming each problem. */
  readonly config: MiddlewareHandler<E>
  /** What /readyz checks, and how its document says so. */
  readonly ready: {
    readonly summary: string
    readonly description: string
    readonly checks: (c: Context<E>) => Promise<readonly Check[]>
  }
  /** The document's description of itself: which plane's API it describes. */
  readonly document: string
}

/**
 * Adds /healthz, /readyz, /openapi.json and /docs to `app`.
 *
 * @example
 * probeRoutes(app, { plane: '', config: requireConfig(), ready, document: 'The OpenAPI 3.1 document' })
 */
export function probeRoutes<E extends Env>(app: Hono<E>, probes: Probes<E>): void {
  const { plane, config, ready } = probes
  app.get(
    '/healthz',
    describeRoute(
      DOCS
        ? {
            operationId: `get${plane}Health`,
            summary: 'Liveness and configuration check',
            description:
              'No authentication. 503 lists each problem when the configuration is invalid.',
            security: [],
            responses: {
              200: HEALTH.response,
              ...publicProblems('method_not_allowed', 'config_invalid'),
            },
          }
        : {},
    ),
    config,
    (c) => HEALTH.json(c, { ok: true }),
  )
  app.get(
    '/readyz',
    describeRoute(
      DOCS
        ? {
            operationId: `get${plane}Readiness`,
            summary: ready.summary,
            description: ready.description,
            security: [],
            responses: {
              200: READY.response,
              ...publicProblems('method_not_allowed', 'config_invalid', 'control_unavailable'),
            },
          }
        : {},
    ),
    config,
    // Hono types a handler's context by the routes before it; for any plane's E it is this one.
    async (c) => readiness(c, await ready.checks(c as unknown as Context<E>)),
  )
  app.get(
    '/openapi.json',
    describeRoute(
      DOCS
        ? {
            operationId: `get${plane}OpenApi`,
            summary: 'This document',
            security: [],
            responses: {
              200: { description: probes.document },
              ...publicProblems('not_found', 'method_not_allowed'),
            },
          }
        : {},
    ),
    // Generated from the routes at build time (npm run openapi), served as a file.
    asset('/openapi.json'),
  )
  app.get(
    '/docs',
    describeRoute(
      DOCS
        ? {
            operationId: `get${plane}ApiReference`,
            summary: 'This API, as an interactive reference page',
            security: [],
            responses: {
              200: { description: 'An HTML page (Scalar) reading /openapi.json' },
              ...publicProblems('not_found', 'method_not_allowed'),
            },
          }
        : {},
    ),
    // Rendered at build time with Scalar's browser bundle beside it (scripts/docs-assets.mjs).
    asset('/docs'),
  )
}
