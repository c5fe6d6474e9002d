// The data plane's Hono: hono's own class with one router, RegExpRouter, the one that hono's
// default (SmartRouter, which tries RegExpRouter and falls back to TrieRouter) settles on for these
// routes anyway. Leaving the other two out keeps them out of the Worker's bundle. The admin API,
// whose paths need TrieRouter (a lookahead in `/grants/:id`), keeps hono's default.

import { HonoBase } from 'hono/hono-base'
import { RegExpRouter } from 'hono/router/reg-exp-router'
import type { Env, Schema } from 'hono'
import type { BlankEnv, BlankSchema } from 'hono/types'

/** `new Hono<AppEnv>()`, as with hono's, on RegExpRouter. */
export class Hono<
  E extends Env = BlankEnv,
  S extends Schema = BlankSchema,
  BasePath extends string = '/',
> extends HonoBase<E, S, BasePath> {
  constructor() {
    super()
    this.router = new RegExpRouter()
  }
}
