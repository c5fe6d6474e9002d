// The upload rules hold to `authorize`, as a property over generated grant sets and uploads
// (fast-check, seeded as the fuzz tests are): an upload is permitted exactly when one rule admits
// its key, type, size, mode and overwrite, read as the document describes the rules (the browser
// client's pre-check reads them so). Grants of another caller, or whose prefix does not fill for
// this one, give no rule.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { authorize, isRefusal, type Reach } from '../../src/auth/policy'
import { uploadRules, type UploadRule } from '../../src/auth/upload-rules'
import type { Action, Config, Grant } from '../../src/config'
import { s3 } from '../../src/origins/s3'
import type { Principal } from '../../src/principal'
import { fuzzParameters } from '../helpers/fuzz-arbitraries'

const SETTINGS = {
  type: 's3',
  bucket: 'b',
  region: 'us-east-1',
  style: 'path',
  endpoint: { protocol: 'https:', host: 's3.example.com', basePath: '/b' },
  credentials: { accessKeyId: 'AKID', secretAccessKey: 'not-a-secret' },
  keys: 'safe',
  signingWindow: 0,
  postPolicy: true,
} as const
const S3 = s3.create('o', SETTINGS, () => undefined)
/** The same store, without POST forms. */
const NO_POST = s3.create('n', { ...SETTINGS, postPolicy: false }, () => undefined)

const ALICE: Principal = { kind: 'api-key', id: 'alice', claims: {}, roles: new Set() }

function configOf(grants: readonly Grant[]): Config {
  return {
    origins: new Map([
      ['o', S3],
      ['n', NO_POST],
    ]),
    grants,
    maxBatch: 10_000,
    defaultExpiresIn: 900,
  } as unknown as Config
}

const FOLDERS = ['', 'a/', 'a/b/', 'a', 'c/', 'u/{apiKey}/', 't/{sub}/'] as const
const PATTERNS = ['image/png', 'image/*', 'application/pdf', 'image/svg+xml', 'text/*'] as const

const grantArb: fc.Arbitrary<Grant> = fc
  .record({
    to: fc.constantFrom('alice', 'alice', 'alice', 'bob'),
    origin: fc.constantFrom('o', 'n'),
    prefix: fc.constantFrom(...FOLDERS),
    actions: fc.subarray(['read', 'write', 'delete'] as Action[], { minLength: 1 }),
    contentTypes: fc.option(fc.subarray([...PATTERNS], { minLength: 1 }), { nil: undefined }),
    maxContentLength: fc.option(fc.constantFrom(1_000, 1_000_000), { nil: undefined }),
    overwrite: fc.boolean(),
  })
  .map(({ to, ...g }): Grant =>
    Object.freeze({
      ...g,
      subject: { kind: 'apiKey' as const, value: to },
      actions: new Set(g.actions),
      maxExpiresIn: 3600,
      maxLinkExpiresIn: 3600,
      maxBatch: 10,
      wildcard: false,
      deleteMismatched: false,
    }),
  )

interface Upload {
  origin: 'o' | 'n'
  mode: 'put' | 'post' | 'multipart'
  key: string
  contentType: string
  /** Absent only for a POST form, which then signs its grant's own limit. */
  contentLength: number | undefined
  overwrite: boolean
}

const uploadArb: fc.Arbitrary<Upload> = fc
  .record({
    origin: fc.constantFrom<'o' | 'n'>('o', 'n'),
    mode: fc.constantFrom<Upload['mode']>('put', 'post', 'multipart'),
    key: fc.constantFrom(
      'a/x.png',
      'a/b/y.pdf',
      'a',
      'ab/x.png',
      'c/z.txt',
      'top.png',
      'u/alice/x',
    ),
    contentType: fc.constantFrom('image/png', 'image/svg+xml', 'text/plain', 'application/pdf'),
    contentLength: fc.constantFrom(500, 2_000_000),
    sized: fc.boolean(),
    overwrite: fc.boolean(),
  })
  .map(({ sized, ...upload }) => ({
    ...upload,
    // A POST form replaces what is at its key: its request must say so.
    overwrite: upload.mode === 'post' || upload.overwrite,
    contentLength: upload.mode === 'post' && !sized ? undefined : upload.contentLength,
  }))

/** The reach POST /v1/uploads makes of an upload (src/services/uploads/issue.ts). */
function reachOf(upload: Upload): Reach {
  const { contentLength: exact, mode } = upload
  return {
    kind: 'upload',
    origin: upload.origin,
    target: { key: upload.key, path: 'key' },
    content: {
      type: { value: upload.contentType, path: 'contentType' },
      length: exact !== undefined ? { exact } : mode === 'post' ? { atMost: 'grant' } : undefined,
      lengthPath: 'contentLength',
      overwrite: upload.overwrite ? { path: mode === 'post' ? 'mode' : 'overwrite' } : undefined,
    },
  }
}

/** Permitted by the policy, and by the origin's own settings (a store without POST forms). */
function permitted(config: Config, upload: Upload): boolean {
  if (upload.mode === 'post' && upload.origin === NO_POST.name) return false
  return !isRefusal(authorize(config, ALICE, reachOf(upload)))
}

/** A rule, read as docs/openapi.json describes it: does it admit the whole upload? */
function admits(rule: UploadRule, upload: Upload): boolean {
  const { prefix } = rule
  const covered =
    prefix === '' ||
    (prefix.endsWith('/')
      ? upload.key.startsWith(prefix)
      : upload.key === prefix || upload.key.startsWith(`${prefix}/`))
  const size = upload.contentLength
  return (
    covered &&
    (rule.admittedTypes === null || rule.admittedTypes.includes(upload.contentType)) &&
    (rule.maxContentLength === null || size === undefined || size <= rule.maxContentLength) &&
    rule.modes.includes(upload.mode) &&
    // A POST form always replaces: "post" is listed only where that is allowed.
    (upload.mode === 'post' || !upload.overwrite || rule.overwrite)
  )
}

describe('the upload rules, as a property', () => {
  it('admit an upload exactly when authorize permits it', () => {
    fc.assert(
      fc.property(fc.array(grantArb, { maxLength: 5 }), uploadArb, (grants, upload) => {
        const config = configOf(grants)
        const rules = uploadRules(config, ALICE, config.origins.get(upload.origin)!)
        expect(rules.some((rule) => admits(rule, upload))).toBe(permitted(config, upload))
      }),
      fuzzParameters(2_000),
    )
  })

  it("give one rule per write grant of the caller's whose prefix fills", () => {
    fc.assert(
      fc.property(fc.array(grantArb, { maxLength: 5 }), (grants) => {
        const config = configOf(grants)
        const writes = grants.filter(
          (grant) =>
            grant.origin === 'o' &&
            grant.subject.kind === 'apiKey' &&
            grant.subject.value === 'alice' &&
            grant.actions.has('write') &&
            !grant.prefix.includes('{sub}'),
        )
        const rules = uploadRules(config, ALICE, S3)
        expect(rules.map((rule) => rule.prefix)).toEqual(
          writes.map((grant) => grant.prefix.replace('{apiKey}', 'alice')),
        )
      }),
      fuzzParameters(500),
    )
  })
})
