import { describe, expectTypeOf, it } from 'vitest'
import type { Env } from '../../src/env'

/** `Env`'s named members, without its index signature (credentials' names are the origins'). */
type Named<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] }

describe('Env', () => {
  it('names every WAYBILL_ variable wrangler.jsonc declares', () => {
    // `Cloudflare.Env` is generated from wrangler.jsonc (npm run types). A WAYBILL_ var the config
    // module does not read is a typo there, which the Worker would ignore: tsc fails here instead.
    expectTypeOf<
      Exclude<Extract<keyof Cloudflare.Env, `WAYBILL_${string}`>, Named<Env>>
    >().toEqualTypeOf<never>()
  })
})
