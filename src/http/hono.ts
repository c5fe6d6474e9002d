// The data plane's Hono: hono's own class, whose routes are matched by the app that serves them
// with hono's RegExpRouter prepared at build time (PreparedRegExpRouter): scripts/openapi.mjs
// compiles the app's paths into src/http/prepared-routes.ts, so the Worker neither carries
// RegExpRouter's compiler nor runs it on its first request. The prepared routes match as
// RegExpRouter does (test/http/hono.test.ts). The admin API keeps hono's default.

import { HonoBase } from 'hono/hono-base'
import type { Env, Schema } from 'hono'
import type { Router } from 'hono/router'
import { PreparedRegExpRouter } from 'hono/router/reg-exp-router'
import type { BlankEnv, BlankSchema, H, RouterRoute } from 'hono/types'
import { preparedRoutes } from './prepared-routes'

type Routed = [H, RouterRoute]

/** What matches an app's routes, as hono's routers do. */
export type AppRouter = Router<Routed>

/**
 * The router of a route group: an app whose routes another app mounts (`app.route('/v1', group)`)
 * and matches. The group itself is never asked to match.
 */
const GROUP: AppRouter = {
  name: 'RouteGroup',
  add() {},
  match() {
    throw new Error('a route group is matched by the app that mounts it (app.route)')
  },
}

/**
 * `new Hono<AppEnv>()` as with hono's: a route group, for an app to mount. The app that serves
 * requests is `servingApp()`'s.
 */
export class Hono<
  E extends Env = BlankEnv,
  S extends Schema = BlankSchema,
  BasePath extends string = '/',
> extends HonoBase<E, S, BasePath> {
  constructor(router: AppRouter = GROUP) {
    super()
    this.router = router
  }
}

/**
 * The app that serves requests, matched by `router`: by default the data plane's routes as
 * prepared at build time. A path they do not hold throws when it is added (`npm run openapi`
 * prepares them again; `npm run check` fails while they are stale).
 */
export function servingApp<E extends Env>(
  router: AppRouter = new PreparedRegExpRouter<Routed>(...preparedRoutes()),
): Hono<E> {
  return new Hono<E>(router)
}
