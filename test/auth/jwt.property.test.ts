// Differential fuzzing of waybill's JWT verification (src/core/jwt, through src/auth/tokens.ts)
// against jose's jwtVerify, which it replaced: the same generated tokens, configs and clock, and
// the same answer, accepted or refused, and for what reason. Seed and replay: see
// test/helpers/fuzz-arbitraries.ts.
//
// Tokens: valid ones of each algorithm, then mutated: another `alg` (none, HS256 signed with the
// RSA public key), another or no `kid`, `crit` and `b64`, headers and payloads that are no JSON
// object, claims missing or of the wrong type, `exp` and `nbf` either side of the clock tolerance,
// `aud` as a string or a list, and segments changed before signing (so that the signature still
// verifies) or after (flipped, cut, padded, swapped, an extra or a missing segment). Key sets:
// one key per algorithm, or a messy one (a 1024-bit RSA key, keys for no or any `alg`, `key_ops`
// a public key cannot have, `use: enc`, two keys under one `kid`, a key with no `kid`).
//
// Where the two may differ, by design: waybill takes only canonical base64url (no padding, no
// whitespace, zero trailing bits: src/core/bytes.ts), jose also decodes the rest. So when a
// segment is not canonical, waybill may refuse it as malformed where jose accepts it or refuses it
// later; the property allows exactly that, and the run must meet such a case (its tally says so).
//
// The reference is jose's jwtVerify behind the key selection and error-to-reason mapping
// src/auth/tokens.ts had with jose, copied here. Both sides are compared twice: the answer
// src/auth/tokens.ts gives (a principal or the 401's detail), and the JwtError code and claim of
// src/core/jwt against jose's error class. Sabotaged verifiers (a clock tolerance off by one
// second, a key set that ignores `kid`) must make the property fail: the generator reaches the
// boundaries.

import fc from 'fast-check'
import {
  base64url,
  createLocalJWKSet,
  errors,
  exportSPKI,
  jwtVerify as joseJwtVerify,
  type JWTPayload,
  type JWSHeaderParameters,
  type FlattenedJWSInput,
} from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { RemoteJwksCache } from '../../src/auth/jwks'
import { jwtPrincipal, verifyJwt } from '../../src/auth/tokens'
import type { JwtConfig } from '../../src/config'
import { JwtError, type JwtErrorCode } from '../../src/core/jwt/errors'
import { hmacKey } from '../../src/core/jwt/hmac'
import { createLocalJwkSet } from '../../src/core/jwt/jwk-set'
import type { Jwk, JwkSet, KeyResolver } from '../../src/core/jwt/types'
import { jwtVerify } from '../../src/core/jwt/verify'
import { WaybillError } from '../../src/errors'
import type { Principal } from '../../src/principal'
import {
  ALGS,
  AUDIENCE,
  HS256_SECRET,
  ISSUER,
  makeKey,
  segment,
  signSegments,
  type Alg,
  type TestKey,
} from '../fixtures/auth'
import { FUZZ_SEED, FUZZ_TIMEOUT_MS, fuzzParameters } from '../helpers/fuzz-arbitraries'

const RUNS = 1000
const SABOTAGE_RUNS = 400

// Not on a whole second: both count time in whole seconds, rounded down (RFC 7519 §2).
const NOW = new Date('2026-11-23T10:00:00.700Z')
const NOW_S = Math.floor(NOW.getTime() / 1000)
const SECOND_AUDIENCE = 'second-audience'
const SECRET = new TextEncoder().encode(HS256_SECRET)
const ALL_ALGS = [...ALGS, 'HS256'] as const
type AnyAlg = (typeof ALL_ALGS)[number]

// ---------------------------------------------------------------------------------------------
// Keys and key sets

interface Signer {
  readonly alg: AnyAlg
  readonly key: CryptoKey
  readonly kid?: string
}

const SIGNERS = [
  ...ALGS,
  'HS256',
  // HS256 keyed with the text of the RS256 public key, naming that key.
  'HS256 with the RSA public key',
  // A key no set has, under a kid no set has, and under the ES256 key's kid.
  'stranger',
  'impostor',
  // Keys only the messy set has.
  'RSA 1024',
  'RSA for any alg as RS256',
  'RSA for any alg as PS256',
  'key_ops sign and verify',
  'use enc',
  'twin',
  'Ed25519 without kid',
] as const
type SignerName = (typeof SIGNERS)[number]

const signers = new Map<SignerName, Signer>()
const keySets: Record<'clean' | 'messy', JwkSet> = { clean: { keys: [] }, messy: { keys: [] } }

async function rsaKey(modulusLength: number): Promise<CryptoKeyPair> {
  return (await crypto.subtle.generateKey(
    {
      name: 'RSASSA-PKCS1-v1_5',
      modulusLength,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: 'SHA-256',
    },
    true,
    ['sign', 'verify'],
  )) as CryptoKeyPair
}

/** The private key of `pair` re-imported for RSA-PSS: one RSA key that signs both RS256 and PS256. */
async function asPss(pair: CryptoKeyPair): Promise<CryptoKey> {
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey)
  return crypto.subtle.importKey(
    'jwk',
    { ...jwk, alg: undefined },
    {
      name: 'RSA-PSS',
      hash: 'SHA-256',
    },
    false,
    ['sign'],
  )
}

async function publicJwk(key: CryptoKey, extra: Record<string, unknown>): Promise<Jwk> {
  const jwk = { ...((await crypto.subtle.exportKey('jwk', key)) as JsonWebKey) } as Record<
    string,
    unknown
  >
  // Web Crypto adds what it knows; the set says only what each case means it to.
  delete jwk.alg
  delete jwk.key_ops
  delete jwk.ext
  return { ...jwk, ...extra }
}

beforeAll(async () => {
  console.info(`JWT differential fuzz: seed ${FUZZ_SEED} (override with VITE_FUZZ_SEED)`)
  const main = {} as Record<Alg, TestKey>
  for (const alg of ALGS) {
    main[alg] = await makeKey(alg)
    signers.set(alg, { alg, key: main[alg].privateKey, kid: main[alg].kid })
  }
  const hmac = await crypto.subtle.importKey(
    'raw',
    SECRET,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  signers.set('HS256', { alg: 'HS256', key: hmac })
  const rsaPublic = await crypto.subtle.importKey(
    'jwk',
    main.RS256.publicJwk as JsonWebKey,
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    true,
    ['verify'],
  )
  const pem = new TextEncoder().encode(await exportSPKI(rsaPublic))
  signers.set('HS256 with the RSA public key', {
    alg: 'HS256',
    key: await crypto.subtle.importKey('raw', pem, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]),
    kid: main.RS256.kid,
  })
  const stranger = await makeKey('ES256', 'stranger')
  signers.set('stranger', { alg: 'ES256', key: stranger.privateKey, kid: 'stranger' })
  signers.set('impostor', { alg: 'ES256', key: stranger.privateKey, kid: main.ES256.kid })

  const short = await rsaKey(1024)
  signers.set('RSA 1024', { alg: 'RS256', key: short.privateKey, kid: 'short' })
  const anyRsa = await rsaKey(2048)
  signers.set('RSA for any alg as RS256', { alg: 'RS256', key: anyRsa.privateKey, kid: 'any' })
  signers.set('RSA for any alg as PS256', { alg: 'PS256', key: await asPss(anyRsa), kid: 'any' })
  const ops = await makeKey('ES256', 'ops')
  signers.set('key_ops sign and verify', { alg: 'ES256', key: ops.privateKey, kid: 'ops' })
  const enc = await makeKey('ES256', 'enc')
  signers.set('use enc', { alg: 'ES256', key: enc.privateKey, kid: 'enc' })
  const twins = [await makeKey('ES256', 'twin'), await makeKey('ES256', 'twin')]
  signers.set('twin', { alg: 'ES256', key: twins[0]!.privateKey, kid: 'twin' })
  const unnamed = await makeKey('EdDSA')
  signers.set('Ed25519 without kid', { alg: 'EdDSA', key: unnamed.privateKey })

  keySets.clean = { keys: ALGS.map((alg) => main[alg].publicJwk as Jwk) }
  keySets.messy = {
    keys: [
      ...keySets.clean.keys,
      await publicJwk(short.publicKey, { kid: 'short', alg: 'RS256', use: 'sig' }),
      await publicJwk(anyRsa.publicKey, { kid: 'any' }),
      { ...(ops.publicJwk as Jwk), key_ops: ['sign', 'verify'] },
      { ...(enc.publicJwk as Jwk), use: 'enc' },
      ...twins.map((twin) => twin.publicJwk as Jwk),
      { ...(unnamed.publicJwk as Jwk), kid: undefined, alg: undefined, use: undefined },
    ],
  }
})

// ---------------------------------------------------------------------------------------------
// Configs, as src/config/auth.ts makes them: HS256 is listed only with its secret.

interface ConfigSpec {
  readonly algorithms: readonly AnyAlg[]
  readonly secret: boolean
  readonly toleranceS: number
  readonly keySet: 'clean' | 'messy'
  readonly audiences: 1 | 2
}

const configs = new Map<string, JwtConfig>()

function configOf(spec: ConfigSpec): JwtConfig {
  const id = JSON.stringify(spec)
  let config = configs.get(id)
  if (config === undefined) {
    config = Object.freeze({
      issuer: ISSUER,
      audience: spec.audiences === 1 ? [AUDIENCE] : [SECOND_AUDIENCE, AUDIENCE],
      algorithms: spec.algorithms,
      clockToleranceS: spec.toleranceS,
      jwks: keySets[spec.keySet],
      hs256Secret: spec.secret || spec.algorithms.includes('HS256') ? SECRET : undefined,
      rolesClaim: 'roles',
    })
    configs.set(id, config)
  }
  return config
}

const configArb: fc.Arbitrary<ConfigSpec> = fc.record({
  algorithms: fc.oneof(
    { weight: 3, arbitrary: fc.constant([...ALL_ALGS]) },
    { weight: 2, arbitrary: fc.subarray([...ALL_ALGS], { minLength: 1 }) },
  ),
  secret: fc.boolean(),
  toleranceS: fc.constantFrom(0, 1, 60, 600),
  keySet: fc.constantFrom('clean', 'messy'),
  audiences: fc.constantFrom(1, 2),
})

// ---------------------------------------------------------------------------------------------
// Tokens

type Header = Record<string, unknown>

/** A change to the header before signing, by name. */
const HEADER_CHANGES: Record<string, (header: Header, signer: Signer) => unknown> = {
  'as signed': (h) => h,
  'alg none': (h) => ({ ...h, alg: 'none' }),
  'alg HS256': (h) => ({ ...h, alg: 'HS256' }),
  'alg RS256': (h) => ({ ...h, alg: 'RS256' }),
  'alg PS256': (h) => ({ ...h, alg: 'PS256' }),
  'alg ES256': (h) => ({ ...h, alg: 'ES256' }),
  'alg EdDSA': (h) => ({ ...h, alg: 'EdDSA' }),
  'alg Ed25519': (h) => ({ ...h, alg: 'Ed25519' }),
  'alg ES384': (h) => ({ ...h, alg: 'ES384' }),
  'alg empty': (h) => ({ ...h, alg: '' }),
  'alg a number': (h) => ({ ...h, alg: 256 }),
  'alg null': (h) => ({ ...h, alg: null }),
  'no alg': (h) => ({ ...h, alg: undefined }),
  'no kid': (h) => ({ ...h, kid: undefined }),
  'kid unknown': (h) => ({ ...h, kid: 'rotated-out' }),
  'kid a number': (h) => ({ ...h, kid: 7 }),
  'kid null': (h) => ({ ...h, kid: null }),
  'kid of another key': (h, s) => ({ ...h, kid: s.alg === 'EdDSA' ? 'ES256-key' : 'EdDSA-key' }),
  'crit b64, b64 true': (h) => ({ ...h, crit: ['b64'], b64: true }),
  'crit b64, b64 false': (h) => ({ ...h, crit: ['b64'], b64: false }),
  'crit b64 twice, b64 true': (h) => ({ ...h, crit: ['b64', 'b64'], b64: true }),
  'crit b64, b64 absent': (h) => ({ ...h, crit: ['b64'] }),
  'crit b64, b64 a string': (h) => ({ ...h, crit: ['b64'], b64: 'false' }),
  'crit exp': (h) => ({ ...h, crit: ['exp'] }),
  'crit b64 and exp': (h) => ({ ...h, crit: ['b64', 'exp'], b64: true }),
  'crit empty': (h) => ({ ...h, crit: [] }),
  'crit a string': (h) => ({ ...h, crit: 'b64', b64: true }),
  'crit an empty name': (h) => ({ ...h, crit: [''] }),
  'b64 false without crit': (h) => ({ ...h, b64: false }),
  'jku and jwk (ignored)': (h) => ({ ...h, jku: 'https://evil.test/jwks', jwk: { kty: 'oct' } }),
  'a list': (h) => [h],
  'a string': () => 'ES256',
  null: () => null,
}

/** What each claim is, by name; `tol` is the config's clock tolerance. */
const CLAIM_CHOICES = {
  iss: {
    right: () => ISSUER,
    wrong: () => 'https://evil.test/',
    missing: () => undefined,
    'a list': () => [ISSUER],
    'a number': () => 1,
  },
  aud: {
    string: () => AUDIENCE,
    'second string': () => SECOND_AUDIENCE,
    list: () => [AUDIENCE],
    'list with others': () => ['x', AUDIENCE, 1],
    'list of others': () => ['x', 'y'],
    'empty list': () => [],
    wrong: () => 'someone-else',
    missing: () => undefined,
    'a number': () => 1,
    null: () => null,
  },
  sub: {
    alice: () => 'alice',
    empty: () => '',
    missing: () => undefined,
    'a number': () => 1,
    null: () => null,
    'too long': () => 'a'.repeat(257),
    'a lone surrogate': () => 'a\ud800',
  },
  exp: {
    later: () => NOW_S + 600,
    'past, beyond the tolerance': (tol: number) => NOW_S - tol - 1,
    'at the tolerance': (tol: number) => NOW_S - tol,
    'just within the tolerance': (tol: number) => NOW_S - tol + 1,
    'half a second within': (tol: number) => NOW_S - tol + 0.5,
    now: () => NOW_S,
    missing: () => undefined,
    'a string': () => String(NOW_S + 600),
    null: () => null,
  },
  nbf: {
    missing: () => undefined,
    past: () => NOW_S - 600,
    'at the tolerance': (tol: number) => NOW_S + tol,
    'beyond the tolerance': (tol: number) => NOW_S + tol + 1,
    'half a second beyond': (tol: number) => NOW_S + tol + 0.5,
    'a string': () => 'soon',
    null: () => null,
  },
  iat: {
    now: () => NOW_S,
    missing: () => undefined,
    future: () => NOW_S + 3600,
    'a string': () => String(NOW_S),
    null: () => null,
  },
  extra: {
    none: () => undefined,
    roles: () => ['admin'],
    'verified email': () => 'ops@example.com',
  },
} as const

type ClaimName = keyof typeof CLAIM_CHOICES
type ClaimSpec = { [C in ClaimName]: keyof (typeof CLAIM_CHOICES)[C] & string }

const VALID_CLAIMS: ClaimSpec = {
  iss: 'right',
  aud: 'string',
  sub: 'alice',
  exp: 'later',
  nbf: 'missing',
  iat: 'now',
  extra: 'none',
}

/** Every claim with every value it can have, one claim changed at a time. */
const CLAIM_CHANGES = (Object.keys(CLAIM_CHOICES) as ClaimName[]).flatMap((claim) =>
  Object.keys(CLAIM_CHOICES[claim]).map((value) => ({ [claim]: value })),
)

function claimsOf(spec: ClaimSpec, tol: number): Record<string, unknown> {
  const value = (claim: ClaimName) =>
    (CLAIM_CHOICES[claim] as Record<string, (tol: number) => unknown>)[spec[claim]]!(tol)
  const claims: Record<string, unknown> = {
    iss: value('iss'),
    aud: value('aud'),
    sub: value('sub'),
    exp: value('exp'),
    nbf: value('nbf'),
    iat: value('iat'),
  }
  if (spec.extra === 'roles') claims.roles = value('extra')
  if (spec.extra === 'verified email') {
    claims.email = value('extra')
    claims.email_verified = true
  }
  return claims
}

/** Payloads that are no claims set, or claims JSON.stringify will not write. */
const PAYLOAD_TEXTS: Record<string, string | Uint8Array> = {
  'not UTF-8': new Uint8Array([0x7b, 0xff, 0x7d]),
  'a list': '[{"sub":"alice"}]',
  'a string': '"alice"',
  'a number': '1',
  null: 'null',
  'not JSON': '{"sub":',
  'exp 1e400 (Infinity)': `{"sub":"alice","iss":"${ISSUER}","aud":"${AUDIENCE}","exp":1e400}`,
  'a repeated sub': `{"sub":"root","sub":"alice","iss":"${ISSUER}","aud":"${AUDIENCE}","exp":${NOW_S + 600}}`,
  'a byte-order mark first': `\ufeff{"sub":"alice","iss":"${ISSUER}","aud":"${AUDIENCE}","exp":${NOW_S + 600}}`,
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** `text` with non-zero bits past its last byte, where its length leaves any. */
function withTrailingBits(text: string): string {
  if (text.length % 4 < 2) return text
  const last = BASE64URL.indexOf(text.at(-1)!)
  return text.slice(0, -1) + BASE64URL[last | 1]!
}

/** Changes to the header or payload segment's text, made before signing. */
const SEGMENT_CHANGES: Record<string, (text: string) => string> = {
  none: (t) => t,
  padded: (t) => t + '='.repeat((4 - (t.length % 4)) % 4 || 4),
  'trailing bits': withTrailingBits,
  'a space inside': (t) => `${t.slice(0, 4)} ${t.slice(4)}`,
  'a plus': (t) => `${t.slice(0, -1)}+`,
  'a slash': (t) => `${t.slice(0, -1)}/`,
  'not ASCII': (t) => `${t}é`,
  'a dot': (t) => `${t}.`,
  empty: () => '',
}

/** Changes to the signed token. */
const TOKEN_CHANGES: Record<string, (token: string, at: number, other: string) => string> = {
  none: (t) => t,
  'a flipped signature bit': (t, at) => {
    const [h, p, s] = t.split('.') as [string, string, string]
    if (!canonical(s) || s === '') return t
    const bytes = base64url.decode(s)
    bytes[at % bytes.length]! ^= 1 << (at % 8)
    return `${h}.${p}.${base64url.encode(bytes)}`
  },
  'a cut signature': (t) => t.slice(0, -4),
  'no signature': (t) => t.slice(0, t.lastIndexOf('.') + 1),
  'a padded signature': (t) =>
    t + '='.repeat((4 - ((t.length - t.lastIndexOf('.') - 1) % 4)) % 4 || 4),
  'signature trailing bits': (t) => {
    const dot = t.lastIndexOf('.')
    return t.slice(0, dot + 1) + withTrailingBits(t.slice(dot + 1))
  },
  'a space in the signature': (t) => `${t.slice(0, -3)} ${t.slice(-3)}`,
  'a newline at the end': (t) => `${t}\n`,
  'an extra segment': (t) => `${t}.e30`,
  'two segments': (t) => t.slice(0, t.lastIndexOf('.')),
  "another token's payload": (t, _, other) => {
    const [h, , s] = t.split('.') as [string, string, string]
    return `${h}.${other.split('.')[1]}.${s}`
  },
  "another token's signature": (t, _, other) =>
    `${t.slice(0, t.lastIndexOf('.'))}.${other.split('.')[2]}`,
}

interface TokenSpec {
  readonly signer: SignerName
  readonly header: string
  readonly claims: ClaimSpec
  readonly payloadText: string | null
  readonly headerSegment: string
  readonly payloadSegment: string
  readonly change: string
  /** Where a change to the signature applies. */
  readonly at: number
  /** Whose token lends its payload or signature, for those changes. */
  readonly other: SignerName
}

type Change = Partial<Omit<TokenSpec, 'claims'>> & { readonly claims?: Partial<ClaimSpec> }

const names = <T extends object>(table: T) => Object.keys(table) as Array<keyof T & string>

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...names(HEADER_CHANGES)).map((header) => ({ header })) },
  { weight: 4, arbitrary: fc.constantFrom(...CLAIM_CHANGES).map((claims) => ({ claims })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...names(PAYLOAD_TEXTS)).map((payloadText) => ({ payloadText })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(...names(SEGMENT_CHANGES))
      .map((headerSegment) => ({ headerSegment })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(...names(SEGMENT_CHANGES))
      .map((payloadSegment) => ({ payloadSegment })),
  },
  { weight: 2, arbitrary: fc.constantFrom(...names(TOKEN_CHANGES)).map((change) => ({ change })) },
)

/** A valid token of `signer`, with `changes` applied in turn. */
function tokenSpec(
  signer: SignerName,
  changes: readonly Change[],
  at = 0,
  other = signer,
): TokenSpec {
  let spec: TokenSpec = {
    signer,
    header: 'as signed',
    claims: VALID_CLAIMS,
    payloadText: null,
    headerSegment: 'none',
    payloadSegment: 'none',
    change: 'none',
    at,
    other,
  }
  for (const change of changes)
    spec = { ...spec, ...change, claims: { ...spec.claims, ...change.claims } }
  return spec
}

/** Mostly a valid token or one change to it: the boundaries, not a sea of garbage; shrinks to fewer. */
const tokenArb: fc.Arbitrary<TokenSpec> = fc
  .record({
    signer: fc.constantFrom(...SIGNERS),
    changes: fc.oneof(
      { weight: 1, arbitrary: fc.constant([]) },
      { weight: 4, arbitrary: changeArb.map((change) => [change]) },
      { weight: 1, arbitrary: fc.array(changeArb, { minLength: 2, maxLength: 3 }) },
    ),
    at: fc.nat(),
    other: fc.constantFrom(...SIGNERS),
  })
  .map(({ signer, changes, at, other }) => tokenSpec(signer, changes, at, other))

async function tokenOf(spec: TokenSpec, toleranceS: number): Promise<string> {
  const signer = signers.get(spec.signer)!
  const header = HEADER_CHANGES[spec.header]!(
    { alg: signer.alg, typ: 'JWT', kid: signer.kid },
    signer,
  )
  const payload =
    spec.payloadText === null
      ? segment(claimsOf(spec.claims, toleranceS))
      : base64url.encode(PAYLOAD_TEXTS[spec.payloadText]!)
  const token = await signSegments(
    signer.alg,
    signer.key,
    SEGMENT_CHANGES[spec.headerSegment]!(segment(header)),
    SEGMENT_CHANGES[spec.payloadSegment]!(payload),
  )
  if (spec.change === 'none') return token
  const other = signers.get(spec.other)!
  const otherToken = await signSegments(
    other.alg,
    other.key,
    segment({ alg: other.alg, kid: other.kid }),
    segment({ sub: 'root', iss: ISSUER, aud: AUDIENCE, exp: NOW_S + 600, roles: ['admin'] }),
  )
  return TOKEN_CHANGES[spec.change]!(token, spec.at, otherToken)
}

/** Whether jose's decoder and encoder give `text` back: canonical base64url, by jose's own code. */
function canonical(text: string): boolean {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return false
  try {
    return base64url.encode(base64url.decode(text)) === text
  } catch {
    return false
  }
}

// ---------------------------------------------------------------------------------------------
// The two verifiers

/** What src/auth/tokens.ts answers: the caller, or the refusal's problem code and detail. */
type Answer =
  | { accepted: { id: string; roles: string[]; email?: string; claims: unknown } }
  | { refused: { code: string; detail: string } }

function answerOf(run: () => Principal): Answer {
  try {
    const { id, roles, email, claims } = run()
    return { accepted: { id, roles: [...roles], email, claims } }
  } catch (error) {
    if (!(error instanceof WaybillError)) throw error
    return { refused: { code: error.code, detail: error.message } }
  }
}

/** Why src/auth/tokens.ts refused a token when it verified with jose (its reasonOf, as it was). */
function joseReasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired'
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'the token is not valid yet'
    if (error.claim === 'iss') return 'the token has the wrong issuer'
    if (error.claim === 'aud') return 'the token has the wrong audience'
    return `the token's "${error.claim}" claim is not valid`
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted"
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token was signed with an unknown key'
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return "the token's signature is not valid"
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid)
    return 'the token is malformed'
  return 'the token is not valid'
}

/** The JwtError code (and claim) that stands for each of jose's errors. */
function joseCodeOf(error: unknown): { code: JwtErrorCode; claim?: string } {
  if (error instanceof errors.JWTExpired) return { code: 'expired', claim: error.claim }
  if (error instanceof errors.JWTClaimValidationFailed)
    return { code: 'claim_invalid', claim: error.claim }
  if (error instanceof errors.JOSEAlgNotAllowed) return { code: 'alg_not_allowed' }
  if (error instanceof errors.JWKSNoMatchingKey) return { code: 'no_matching_key' }
  if (error instanceof errors.JWKSMultipleMatchingKeys) return { code: 'multiple_matching_keys' }
  if (error instanceof errors.JWSSignatureVerificationFailed) return { code: 'signature_invalid' }
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid)
    return { code: 'malformed' }
  if (error instanceof errors.JOSENotSupported) return { code: 'unsupported' }
  // A key that does not import (Web Crypto's errors), is private, or does not fit the algorithm.
  if (
    error instanceof errors.JWKSInvalid ||
    error instanceof TypeError ||
    error instanceof DOMException
  ) {
    return { code: 'invalid_key' }
  }
  throw error
}

const joseSets = new WeakMap<JwkSet, ReturnType<typeof createLocalJWKSet>>()

/** jose's jwtVerify as src/auth/tokens.ts called it, and its error if it refused. */
async function joseVerify(
  token: string,
  config: JwtConfig,
): Promise<{ payload: JWTPayload } | { error: unknown }> {
  const jwks = config.jwks!
  let local = joseSets.get(jwks)
  if (local === undefined) joseSets.set(jwks, (local = createLocalJWKSet(jwks as never)))
  const keyFor = (header: JWSHeaderParameters, input: FlattenedJWSInput) => {
    if (header.alg === 'HS256') {
      if (config.hs256Secret === undefined)
        throw new errors.JOSEAlgNotAllowed('HS256 is not configured')
      return config.hs256Secret
    }
    return local(header, input)
  }
  try {
    const { payload } = await joseJwtVerify(token, keyFor, {
      issuer: config.issuer,
      audience: [...config.audience],
      algorithms: [...config.algorithms],
      clockTolerance: config.clockToleranceS,
      currentDate: NOW,
      requiredClaims: ['exp', 'sub'],
    })
    return { payload }
  } catch (error) {
    return { error }
  }
}

const remote = new RemoteJwksCache(
  () => Promise.reject(new Error('no fetch here')),
  () => 0,
)

async function oursAnswer(token: string, config: JwtConfig): Promise<Answer> {
  try {
    const principal = await verifyJwt(token, config, remote, NOW)
    return answerOf(() => principal)
  } catch (error) {
    return answerOf(() => {
      throw error
    })
  }
}

function joseAnswer(
  verified: { payload: JWTPayload } | { error: unknown },
  config: JwtConfig,
): Answer {
  if ('error' in verified) {
    return {
      refused: {
        code: 'unauthorized',
        detail: `Authentication failed: ${joseReasonOf(verified.error)}.`,
      },
    }
  }
  return answerOf(() => jwtPrincipal(verified.payload, config))
}

/** How the core (src/core/jwt) is called here; a sabotaged one for the tests of the test. */
interface Core {
  readonly toleranceDelta: number
  readonly keySet: (jwks: JwkSet) => KeyResolver
}

const HONEST: Core = { toleranceDelta: 0, keySet: createLocalJwkSet }
const coreSets = new WeakMap<Core, WeakMap<JwkSet, KeyResolver>>()

async function oursCode(
  token: string,
  config: JwtConfig,
  core: Core,
): Promise<{ payload: unknown } | { code: JwtErrorCode; claim?: string }> {
  let sets = coreSets.get(core)
  if (sets === undefined) coreSets.set(core, (sets = new WeakMap()))
  let local = sets.get(config.jwks!)
  if (local === undefined) sets.set(config.jwks!, (local = core.keySet(config.jwks!)))
  const keyFor: KeyResolver = (header) => {
    if (header.alg !== 'HS256') return local(header)
    if (config.hs256Secret === undefined) {
      return Promise.reject(new JwtError('alg_not_allowed', 'HS256 is not configured'))
    }
    return hmacKey(config.hs256Secret)
  }
  try {
    const { payload } = await jwtVerify(token, keyFor, {
      issuer: config.issuer,
      audience: config.audience,
      algorithms: config.algorithms,
      clockToleranceS: config.clockToleranceS + core.toleranceDelta,
      now: NOW,
      requiredClaims: ['exp', 'sub'],
    })
    return { payload }
  } catch (error) {
    if (!(error instanceof JwtError)) throw error
    return error.claim === undefined
      ? { code: error.code }
      : { code: error.code, claim: error.claim }
  }
}

// ---------------------------------------------------------------------------------------------
// The property

/** Tally of what the runs met: each answer, and each allowed difference. */
type Tally = Map<string, number>

function count(tally: Tally, key: string): void {
  tally.set(key, (tally.get(key) ?? 0) + 1)
}

function property(core: Core, tally: Tally) {
  return fc.asyncProperty(configArb, tokenArb, async (configSpec, tokenSpec) => {
    const config = configOf(configSpec)
    const token = await tokenOf(tokenSpec, configSpec.toleranceS)
    const verified = await joseVerify(token, config)
    const jose = joseAnswer(verified, config)
    const joseCode =
      'error' in verified ? joseCodeOf(verified.error) : { payload: verified.payload }
    const ours = await oursAnswer(token, config)
    const oursCore = await oursCode(token, config, core)

    const segments = token.split('.')
    const allCanonical = segments.length !== 3 || segments.every(canonical)
    const strictlyMalformed =
      'refused' in ours &&
      ours.refused.detail === 'Authentication failed: the token is malformed.' &&
      'code' in oursCore &&
      oursCore.code === 'malformed'
    if (!allCanonical && strictlyMalformed && JSON.stringify(ours) !== JSON.stringify(jose)) {
      // The one difference by design: jose decoded a segment waybill does not take.
      count(
        tally,
        `non-canonical: waybill malformed, jose ${'accepted' in jose ? 'accepted' : jose.refused.detail}`,
      )
      return
    }
    expect(ours, `${token}\n jose: ${JSON.stringify(jose)}`).toEqual(jose)
    expect(oursCore, token).toEqual(joseCode)
    count(
      tally,
      'accepted' in ours
        ? `accepted ${signers.get(tokenSpec.signer)!.alg}`
        : `refused: ${'code' in oursCore ? oursCore.code : ours.refused.detail}`,
    )
  })
}

const FULL: ConfigSpec = {
  algorithms: ALL_ALGS,
  secret: true,
  toleranceS: 60,
  keySet: 'clean',
  audiences: 2,
}
const MESSY: ConfigSpec = { ...FULL, keySet: 'messy' }

/** Run first, whatever the seed: one case of each answer the tally must show. */
const EXAMPLES: Array<[ConfigSpec, TokenSpec]> = [
  ...ALL_ALGS.map((alg): [ConfigSpec, TokenSpec] => [FULL, tokenSpec(alg, [])]),
  [FULL, tokenSpec('ES256', [{ header: 'crit exp' }])],
  [FULL, tokenSpec('ES256', [{ header: 'alg none' }])],
  [{ ...FULL, algorithms: ['RS256'] }, tokenSpec('HS256 with the RSA public key', [])],
  [FULL, tokenSpec('ES256', [{ header: 'kid unknown' }])],
  [MESSY, tokenSpec('twin', [])],
  [MESSY, tokenSpec('RSA 1024', [])],
  [FULL, tokenSpec('EdDSA', [{ change: 'a flipped signature bit' }], 5)],
  [FULL, tokenSpec('RS256', [{ claims: { iss: 'wrong' } }])],
  [FULL, tokenSpec('PS256', [{ claims: { exp: 'at the tolerance' } }])],
  [FULL, tokenSpec('ES256', [{ payloadText: 'a list' }])],
  [FULL, tokenSpec('ES256', [{ payloadSegment: 'padded' }])],
  [FULL, tokenSpec('ES256', [{ change: 'a padded signature' }])],
  [FULL, tokenSpec('ES256', [{ change: 'signature trailing bits' }])],
]

describe('JWT verification, against jose', () => {
  it(
    'accepts and refuses what jose does, for the same reason',
    async () => {
      const tally: Tally = new Map()
      await fc.assert(property(HONEST, tally), { ...fuzzParameters(RUNS), examples: EXAMPLES })
      console.info(
        [...tally]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, n]) => `${n}\t${k}`)
          .join('\n'),
      )
      // The runs met every answer: an accepted token of each algorithm, each reason to refuse,
      // and the one difference by design.
      const seen = [...tally.keys()]
      for (const alg of ALL_ALGS) expect(seen).toContain(`accepted ${alg}`)
      for (const code of [
        'malformed',
        'unsupported',
        'alg_not_allowed',
        'no_matching_key',
        'multiple_matching_keys',
        'invalid_key',
        'signature_invalid',
        'claim_invalid',
        'expired',
      ] satisfies JwtErrorCode[]) {
        expect(seen).toContain(`refused: ${code}`)
      }
      expect(
        seen.some((key) => key.startsWith('non-canonical: waybill malformed, jose accepted')),
      ).toBe(true)
    },
    FUZZ_TIMEOUT_MS,
  )

  const sabotaged: Array<[string, Core]> = [
    ['a clock tolerance one second too long', { ...HONEST, toleranceDelta: 1 }],
    [
      'a key set that ignores kid',
      {
        ...HONEST,
        keySet: (jwks) => {
          const set = createLocalJwkSet({
            keys: jwks.keys.map((jwk) => ({ ...jwk, kid: undefined })),
          })
          return (header) => set({ ...header, kid: undefined })
        },
      },
    ],
  ]
  for (const [name, core] of sabotaged) {
    it(
      `fails for a verifier with ${name}`,
      async () => {
        const result = await fc.check(property(core, new Map()), {
          ...fuzzParameters(SABOTAGE_RUNS),
          endOnFailure: true,
        })
        expect(result.failed).toBe(true)
      },
      FUZZ_TIMEOUT_MS,
    )
  }
})
