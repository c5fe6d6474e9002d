// The invariant of the policy, stated as properties over generated grant sets and reaches
// (fast-check, seeded as the fuzz tests are: see test/helpers/fuzz-arbitraries.ts):
//
// 1. Whenever `authorize` permits, one grant permits alone: each target is justified by a single
//    grant that allows every field of it, with the same lifetime and (for an upload signed up to a
//    grant's limit) that grant's own size.
// 2. The answer does not depend on the order of the grants.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { authorize, isPermit, isRefusal, type Permit, type Reach } from '../../src/auth/policy'
import { batchSigner } from '../../src/services/signers'
import type { Principal } from '../../src/principal'
import { subjectMatches, subjectsOf } from '../../src/principal/subjects'
import type { Action, Config, Grant, GrantSubject } from '../../src/config'
import { s3 } from '../../src/origins/s3'
import { fuzzParameters } from '../helpers/fuzz-arbitraries'

const ORIGIN = s3.create(
  'o',
  {
    type: 's3',
    bucket: 'b',
    region: 'us-east-1',
    style: 'path',
    endpoint: { protocol: 'https:', host: 's3.example.com', basePath: '/b' },
    credentials: { accessKeyId: 'AKID', secretAccessKey: 'not-a-secret' },
    keys: 'safe',
    signingWindow: 0,
    postPolicy: true,
  },
  () => undefined,
)

const ALICE: Principal = { kind: 'api-key', id: 'alice', claims: {}, roles: new Set() }

function configOf(grants: readonly Grant[]): Config {
  return {
    origins: new Map([['o', ORIGIN]]),
    notify: {},
    apiKeys: [],
    grants,
    maxBatch: 10_000,
    defaultExpiresIn: 900,
    maxRsaSignatures: 250,
    requestLog: 'all',
    linkSecrets: [],
    linkRevocations: [],
  } as unknown as Config
}

const FOLDERS = ['', 'a/', 'a/b/', 'c/'] as const
const TYPES = ['image/png', 'image/*', 'application/pdf', 'image/svg+xml', 'text/*'] as const
const LIFETIMES = [60, 900, 3600, 86_400, 604_800] as const

const grantArb: fc.Arbitrary<Grant> = fc
  .record({
    prefix: fc.constantFrom(...FOLDERS),
    actions: fc.subarray(['read', 'write', 'delete'] as Action[], { minLength: 1 }),
    maxExpiresIn: fc.constantFrom(...LIFETIMES),
    maxLinkExpiresIn: fc.constantFrom(...LIFETIMES),
    maxBatch: fc.constantFrom(1, 3, 10, 10_000),
    contentTypes: fc.option(fc.subarray([...TYPES], { minLength: 1 }), { nil: undefined }),
    maxContentLength: fc.option(fc.constantFrom(1_000, 1_000_000, 50_000_000), { nil: undefined }),
    responseContentTypes: fc.option(fc.subarray(['text/plain', 'text/html', 'image/*']), {
      nil: undefined,
    }),
    overwrite: fc.boolean(),
  })
  .map((g): Grant =>
    Object.freeze({
      ...g,
      subject: { kind: 'apiKey' as const, value: 'alice' },
      origin: 'o',
      actions: new Set(g.actions),
      wildcard: false,
      deleteMismatched: false,
    }),
  )

const keyArb = fc.constantFrom('a/x.png', 'a/b/y.pdf', 'c/z.txt', 'top.png')

const uploadArb: fc.Arbitrary<Reach> = fc
  .record({
    key: keyArb,
    type: fc.constantFrom('image/png', 'application/pdf', 'image/svg+xml', 'text/plain'),
    length: fc.constantFrom<'grant' | number | undefined>('grant', undefined, 500, 2_000_000),
    expiresIn: fc.option(fc.constantFrom(...LIFETIMES), { nil: undefined }),
    overwrite: fc.constantFrom<'post' | 'asked' | undefined>('post', 'asked', undefined),
  })
  .map(({ key, type, length, expiresIn, overwrite }) => ({
    kind: 'upload',
    origin: 'o',
    target: { key, path: 'key' },
    expiresIn,
    content: {
      type: { value: type, path: 'contentType' },
      length:
        length === undefined
          ? undefined
          : length === 'grant'
            ? { atMost: 'grant' as const }
            : { exact: length },
      lengthPath: 'contentLength',
      overwrite:
        overwrite === 'post'
          ? { path: 'mode' }
          : overwrite === 'asked'
            ? { path: 'overwrite' }
            : undefined,
    },
  }))

const urlsArb: fc.Arbitrary<Reach> = fc
  .record({
    keys: fc.array(keyArb, { minLength: 1, maxLength: 12 }),
    action: fc.constantFrom<'read' | 'write' | 'delete'>('read', 'write', 'delete'),
    expiresIn: fc.option(fc.constantFrom(...LIFETIMES), { nil: undefined }),
    override: fc.option(fc.constantFrom('text/plain', 'text/html', 'image/png'), {
      nil: undefined,
    }),
    links: fc.boolean(),
  })
  .map(({ keys, action, expiresIn, override, links }) => {
    const items = keys.map((key) => ({
      key,
      ...(override === undefined || action !== 'read'
        ? {}
        : { response: { contentType: override } }),
    }))
    const common = { origin: 'o', items, itemPath: (i: number) => `keys.${i}`, expiresIn }
    return links && action === 'read'
      ? { ...common, kind: 'links' as const }
      : { ...common, kind: 'urls' as const, action }
  })

const reachArb = fc.oneof(uploadArb, urlsArb)

/** What a permit says, without the objects it refers to. */
const summary = (answer: Permit | ReturnType<typeof authorize>) =>
  isRefusal(answer)
    ? answer
    : {
        items: answer.items,
        under: answer.under,
        expiresIn: answer.expiresIn,
        window: answer.window,
        maxLifetime: answer.maxLifetime,
        maxContentLength: answer.maxContentLength,
        maxCount: answer.maxCount,
      }

/** The one-target reaches a reach is made of, each with the lifetime the permit chose. */
function targetsOf(reach: Reach, expiresIn: number): Reach[] {
  if (reach.kind === 'upload') return [{ ...reach, expiresIn }]
  if (reach.kind === 'urls' || reach.kind === 'links') {
    // One item, but as many entries as the batch: a grant's maxBatch must admit the whole batch.
    return reach.items.map((item) => ({
      ...reach,
      items: reach.items.map(() => item),
      expiresIn,
    }))
  }
  throw new Error(`no targets for ${reach.kind}`)
}

describe('authorize, as properties', () => {
  it('permits only what one grant alone permits, target by target', () => {
    fc.assert(
      fc.property(fc.array(grantArb, { minLength: 1, maxLength: 5 }), reachArb, (grants, reach) => {
        const answer = authorize(configOf(grants), ALICE, reach)
        if (isRefusal(answer)) return
        for (const target of targetsOf(reach, answer.expiresIn)) {
          const alone = grants
            .map((grant) => authorize(configOf([grant]), ALICE, target))
            .filter((a): a is Permit => !isRefusal(a))
          expect(alone.length, JSON.stringify(target)).toBeGreaterThan(0)
          if (reach.kind === 'upload' && reach.content.length !== undefined) {
            // The size signed is one grant's own, never a larger one taken from another.
            expect(alone.map((p) => p.maxContentLength)).toContain(answer.maxContentLength)
          }
        }
      }),
      fuzzParameters(400),
    )
  })

  it('answers the same whatever the order of the grants', () => {
    fc.assert(
      fc.property(
        fc.array(grantArb, { minLength: 1, maxLength: 5 }),
        reachArb,
        fc.nat(),
        (grants, reach, seed) => {
          const shuffled = [...grants]
          for (let i = shuffled.length - 1; i > 0; i--) {
            const j = (seed + i * 7919) % (i + 1)
            ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
          }
          expect(summary(authorize(configOf(shuffled), ALICE, reach))).toEqual(
            summary(authorize(configOf(grants), ALICE, reach)),
          )
        },
      ),
      fuzzParameters(400),
    )
  })

  it('refuses what two grants would allow only together (the reported combination)', () => {
    const grant = (over: Partial<Grant>): Grant => ({
      subject: { kind: 'apiKey', value: 'alice' },
      origin: 'o',
      prefix: '',
      actions: new Set<Action>(['write']),
      maxExpiresIn: 604_800,
      maxLinkExpiresIn: 604_800,
      maxBatch: 10_000,
      wildcard: false,
      deleteMismatched: false,
      overwrite: true,
      ...over,
    })
    const grants = [
      grant({ maxContentLength: 50_000_000, maxExpiresIn: 3600 }),
      grant({ maxContentLength: 1_000_000 }),
    ]
    const post = (expiresIn: number): Reach => ({
      kind: 'upload',
      origin: 'o',
      target: { key: 'x.png', path: 'key' },
      expiresIn,
      content: {
        type: { value: 'image/png', path: 'contentType' },
        length: { atMost: 'grant' },
        lengthPath: 'contentLength',
        overwrite: { path: 'mode' },
      },
    })
    const week = authorize(configOf(grants), ALICE, post(604_800))
    expect(isRefusal(week) ? week : week.maxContentLength).toBe(1_000_000)
    const hour = authorize(configOf(grants), ALICE, post(3600))
    expect(isRefusal(hour) ? hour : hour.maxContentLength).toBe(50_000_000)
  })
})

describe('a permit', () => {
  it('is only what authorize made: a copy or a look-alike signs nothing', () => {
    const grant = Object.freeze({
      subject: { kind: 'apiKey' as const, value: 'alice' },
      origin: 'o',
      prefix: 'a/',
      actions: new Set<Action>(['read']),
      maxExpiresIn: 3600,
      maxLinkExpiresIn: 3600,
      maxBatch: 10,
      wildcard: false,
      overwrite: false,
      deleteMismatched: false,
    }) as unknown as Grant
    const permit = authorize(configOf([grant]), ALICE, {
      kind: 'urls',
      action: 'read',
      origin: 'o',
      items: [{ key: 'a/x.png' }],
      itemPath: (i) => `keys.${i}`,
    })
    if (isRefusal(permit)) throw new Error(permit.detail)
    expect(isPermit(permit)).toBe(true)
    expect(Object.isFrozen(permit)).toBe(true)
    const now = new Date('2026-11-23T10:00:00Z')
    const minting = { base: 'https://waybill.test', issuer: null, secrets: [] }
    expect(() => batchSigner(permit, { method: 'GET', now, minting })).not.toThrow()
    const widened = { ...permit, items: [{ key: 'b/secret.txt' }] } as Permit
    const lookAlike: unknown = Object.assign(
      Object.create(Object.getPrototypeOf(permit) as object) as object,
      permit,
    )
    for (const forged of [widened, lookAlike as Permit]) {
      expect(isPermit(forged)).toBe(false)
      expect(() => batchSigner(forged, { method: 'GET', now, minting })).toThrow(/needs a permit/)
    }
  })
})

describe('the subjects of a caller', () => {
  const name = fc.constantFrom('alice', 'bob', 'ops', 'a@x.example')
  const principal = fc.record({
    kind: fc.constantFrom('api-key' as const, 'jwt' as const, 'access' as const),
    id: name,
    claims: fc.constant({}),
    roles: fc.uniqueArray(name, { maxLength: 3 }).map((roles) => new Set(roles)),
    email: fc.option(name, { nil: undefined }),
  })
  const subject: fc.Arbitrary<GrantSubject> = fc.oneof(
    fc.constant({ kind: 'any' as const }),
    fc.record({
      kind: fc.constantFrom('apiKey' as const, 'sub' as const, 'role' as const, 'email' as const),
      value: name,
    }),
  )

  it('are exactly the subjects a grant matches them by (what the control plane reads D1 by)', () => {
    fc.assert(
      fc.property(principal, subject, (caller, grantSubject) => {
        const listed = subjectsOf(caller).some(
          (s) => JSON.stringify(s) === JSON.stringify(grantSubject),
        )
        expect(listed).toBe(subjectMatches(grantSubject, caller))
      }),
      fuzzParameters(500),
    )
  })
})
