// The origin drivers, registered in one place: WAYBILL_ORIGINS is parsed by the schema each driver
// gives its `type`, and each origin is made by its driver. Nothing else names a driver.

import * as v from 'valibot'
import type { Env } from '../env'
import type { FieldError } from '../errors'
import { OriginName } from '../schemas/fields'
import { pathTo, record } from '../schemas/valibot'
import { cloudfront } from './cloudfront'
import { r2 } from './r2'
import { s3 } from './s3'
import type { Origin, OriginDriver } from './types'

/** Every driver, by the `type` its origins are configured with. */
// Each hands its own `create` only what its own schema made (see originsSchema), whatever the
// settings' type: that is the driver's business alone.
const DRIVERS: readonly OriginDriver<unknown>[] = [s3, cloudfront, r2]

const TYPES = DRIVERS.map((driver) => `"${driver.type}"`).join(' or ')

/**
 * WAYBILL_ORIGINS for one `env`, which holds the secrets the origins name: a map of frozen origins.
 *
 * @example
 * const result = v.safeParse(originsSchema(env), { photos: { type: 's3', … } })
 */
export function originsSchema(env: Env) {
  const Definition = v.variant(
    'type',
    // Each an object schema with `type: v.literal(<its type>)` (./types.ts), as a variant needs.
    DRIVERS.map((driver) => driver.schema(env)) as unknown as v.VariantOptions<'type'>,
    (issue) => (issue.path === undefined ? 'must be an object' : `must be ${TYPES}`),
  )
  return v.pipe(
    record(OriginName, Definition, (input) =>
      input === undefined
        ? 'is not set; define at least one origin'
        : 'must be a JSON object of origin name to origin',
    ),
    v.check((origins) => Object.keys(origins).length > 0, 'must define at least one origin'),
    v.rawTransform(({ dataset: { value: definitions }, addIssue }): ReadonlyMap<string, Origin> => {
      const origins = new Map<string, Origin>()
      const others = (name: string) => origins.get(name)
      const made: [string, OriginDriver<unknown>, unknown][] = []
      for (const [name, settings] of Object.entries(definitions)) {
        const driver = driverOf((settings as { readonly type: string }).type)
        origins.set(name, driver.create(name, settings, others))
        made.push([name, driver, settings])
      }
      // What names another origin is checked once all are made.
      for (const [name, driver, settings] of made) {
        for (const problem of driver.check?.(settings, others) ?? []) {
          addIssue({ message: problem.message, path: pathTo(definitions, name, problem.path) })
        }
      }
      return origins
    }),
  )
}

function driverOf(type: string): OriginDriver<unknown> {
  const driver = DRIVERS.find((candidate) => candidate.type === type)
  if (driver === undefined) throw new Error(`no driver for origin type ${type}`)
  return driver
}

/**
 * Readies every origin that needs work once per isolate (importing keys), once per map;
 * resolves to the problems found (none: ready).
 */
export function prepareOrigins(origins: ReadonlyMap<string, Origin>) {
  let done = prepared.get(origins)
  if (done === undefined) {
    const jobs = [...origins.values()].map((origin) => origin.prepare?.() ?? Promise.resolve([]))
    done = Promise.all(jobs).then((problems) => problems.flat())
    prepared.set(origins, done)
  }
  return done
}
const prepared = new WeakMap<ReadonlyMap<string, Origin>, Promise<readonly FieldError[]>>()
