// Shared fast-check arbitraries and run settings for the differential fuzz tests
// (test/core/s3/presign.fuzz.test.ts, test/core/cloudfront/sign.fuzz.test.ts,
// test/e2e/fuzz-roundtrip.test.ts).
//
// Every property runs with a fixed seed, so a run is reproducible and CI sees the same cases each
// time. To explore other cases, or to replay a failure fast-check reported, pass the seed through
// Vite's environment (the only host variables that reach tests running inside workerd):
//
//   VITE_FUZZ_SEED=1234 vitest run test/core/s3/presign.fuzz.test.ts
//
// On failure fast-check prints the seed, the replay path and the shrunk counterexample. The same
// seed finds and shrinks the same failure again (the generators read no clock and no other source
// of randomness). To run only the shrunk case while debugging, spread
// `{ path: '<path>', endOnFailure: true }` into that property's parameters locally.

import fc from 'fast-check'
import { MAX_KEY_BYTES } from '../../src/limits'

/** The seed every fuzz file uses unless `VITE_FUZZ_SEED` says otherwise. Edit to move the corpus. */
const DEFAULT_FUZZ_SEED = 20_261_123

function viteEnv(name: string): string | undefined {
  return (import.meta as ImportMeta & { env?: Record<string, string | undefined> }).env?.[name]
}

function seedFromEnv(): number {
  const raw = viteEnv('VITE_FUZZ_SEED')
  if (raw === undefined || raw === '') return DEFAULT_FUZZ_SEED
  const seed = Number(raw)
  if (!Number.isSafeInteger(seed)) throw new Error(`VITE_FUZZ_SEED must be an integer, not ${raw}`)
  return seed
}

export const FUZZ_SEED = seedFromEnv()

/** Per-test limit for the heavy properties: well above their run time on a busy 2-core machine. */
export const FUZZ_TIMEOUT_MS = 120_000

/**
 * Settings for `fc.assert`: the seed, a run count, and a report that keeps the seed, the replay
 * path, the shrunk counterexample and the assertion's own message in the thrown error. Every
 * property uses the one seed, so the seed a failure reports is the one to pass in VITE_FUZZ_SEED.
 */
export function fuzzParameters<T>(numRuns: number): fc.Parameters<T> {
  return {
    seed: FUZZ_SEED,
    numRuns,
    // Shrink, then report the seed, the replay path, the smallest counterexample and the
    // assertion's message in the error itself (not only as its `cause`).
    endOnFailure: false,
    includeErrorInReport: true,
    // `Verbose` would also list every failure met while shrinking: kilobytes per 1024-byte key.
    verbose: fc.VerbosityLevel.None,
  }
}

/**
 * Asserts two URLs are byte-identical. Unlike `expect(a).toBe(b)`, whose message cuts long strings,
 * the error shows both in full, so the counterexample fast-check prints is enough to debug.
 */
export function expectSameUrl(ours: string, reference: string, referenceName: string): void {
  if (ours === reference) return
  let at = 0
  while (at < ours.length && ours[at] === reference[at]) at++
  throw new Error(
    `waybill and ${referenceName} differ at character ${at}:\n` +
      `  waybill: ${ours}\n  ${referenceName}: ${reference}`,
  )
}

const encoder = new TextEncoder()

/** Bytes of UTF-8, by the platform's encoder (independent of the code under test). */
export function utf8Bytes(value: string): number {
  return encoder.encode(value).length
}

/** The longest prefix of `value` of at most `maxBytes` bytes of UTF-8, cut between code points. */
export function truncateUtf8(value: string, maxBytes: number): string {
  let bytes = 0
  let end = 0
  for (const ch of value) {
    const cp = ch.codePointAt(0)!
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4
    if (bytes + size > maxBytes) break
    bytes += size
    end += ch.length
  }
  return value.slice(0, end)
}

const ASCII_PUNCTUATION = ` !"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const HEX_DIGITS = '0123456789ABCDEF'
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789'

const isSurrogate = (cp: number) => cp >= 0xd800 && cp <= 0xdfff

/** Characters with canonical or compatibility decompositions, precomposed and decomposed. */
const COMPOSABLE = [
  'é',
  'e\u0301',
  'Å',
  'A\u030a',
  '\u212b', // ANGSTROM SIGN: NFC turns it into U+00C5
  '\u2126', // OHM SIGN: NFC turns it into U+03A9
  'ñ',
  'n\u0303',
  'ộ',
  'o\u0323\u0302',
  '한',
  '\u1112\u1161\u11ab', // the same syllable as jamo
  'ﬁ', // a ligature only NFKC/NFKD split
  '①',
  '\u0344', // a singleton NFC decomposes to two code points
  'Ǆ',
  'ẛ̣',
]

/** Code points that trip up naive encoders, parsers and normalizers. */
const SPECIALS = [
  '\u0000',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u200b',
  '\u200d',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffd',
  '\ufffe',
  '\uffff',
  '\u{10000}',
  '\u{10ffff}',
  '😀',
  '👩‍👩‍👧',
  '🏳️‍🌈',
  '🇫🇷',
  '𝄞',
]

/** One character of `chars`. */
export const charFrom = (chars: string) => fc.constantFrom(...chars.split(''))

/** One code point anywhere in Unicode except the surrogates. */
export const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff })
  .filter((cp) => !isSurrogate(cp))
  .map((cp) => String.fromCodePoint(cp))

/** A small piece of an object key. */
const keyPiece: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: charFrom(ALNUM) },
  { weight: 5, arbitrary: charFrom(ASCII_PUNCTUATION) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(' ', '+', '%', '~', '%2F', '%20', '%25', '%zz', '%C3%A9', '+%2B'),
  },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 4 }).map((n) => '/'.repeat(n)) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 0x9f }).map((cp) => String.fromCodePoint(cp)),
  },
  {
    weight: 3,
    arbitrary: fc
      .integer({ min: 0x80, max: 0xffff })
      .filter((cp) => !isSurrogate(cp))
      .map((cp) => String.fromCodePoint(cp)),
  },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }) },
  { weight: 2, arbitrary: fc.constantFrom(...COMPOSABLE) },
  { weight: 1, arbitrary: fc.constantFrom(...SPECIALS) },
  { weight: 1, arbitrary: anyCodePoint },
)

/** A run of one piece, so that long keys (up to the 1024-byte limit) come up often. */
const keyRun = fc
  .tuple(keyPiece, fc.integer({ min: 2, max: 300 }))
  .map(([piece, n]) => piece.repeat(n))

const NORMAL_FORMS = [undefined, 'NFC', 'NFD', 'NFKC', 'NFKD'] as const

export interface ObjectKeyOptions {
  /** Upper bound in bytes of UTF-8 (S3's 1024 unless told). */
  maxBytes?: number
  /** Longest run of pieces before truncation. */
  maxPieces?: number
}

/**
 * Object keys S3 accepts: 1 to `maxBytes` bytes of well-formed UTF-8 (never a lone surrogate), from
 * all of Unicode, every ASCII punctuation mark, `/` runs, percent signs, and both normal forms of
 * composable characters. Half the keys are cut or padded to an exact byte length, a sixth to the
 * limit itself.
 */
export function objectKey(options: ObjectKeyOptions = {}): fc.Arbitrary<string> {
  const maxBytes = options.maxBytes ?? MAX_KEY_BYTES
  return fc
    .record({
      pieces: fc.array(
        fc.oneof({ weight: 6, arbitrary: keyPiece }, { weight: 1, arbitrary: keyRun }),
        {
          minLength: 1,
          maxLength: options.maxPieces ?? 40,
        },
      ),
      form: fc.constantFrom(...NORMAL_FORMS),
      // An exact length: the limit itself, a short key, or anything up to the limit.
      target: fc.option(
        fc.oneof(
          fc.constant(maxBytes),
          fc.integer({ min: 1, max: Math.min(64, maxBytes) }),
          fc.integer({ min: 1, max: maxBytes }),
        ),
        { freq: 2 },
      ),
      pad: fc.constantFrom('x', '~', '-', '%', ' ', '+', '/'),
    })
    .map(({ pieces, form, target, pad }) => {
      let key = pieces.join('')
      if (form !== undefined) key = key.normalize(form)
      key = truncateUtf8(key, target ?? maxBytes)
      if (target !== null) key += pad.repeat(target - utf8Bytes(key))
      return key
    })
    .filter((key) => key.length > 0)
}

/** Why a generated key is refused: the class of input, for the report. */
export type InvalidKeyKind = 'empty' | 'lone surrogate' | 'too long'

/** Keys S3 cannot store, tagged with the reason: empty, a lone surrogate, or over 1024 bytes. */
export const invalidObjectKey: fc.Arbitrary<{ kind: InvalidKeyKind; key: string }> = fc.oneof(
  fc.constant({ kind: 'empty' as const, key: '' }),
  fc
    .record({
      key: objectKey({ maxBytes: MAX_KEY_BYTES - 3 }),
      at: fc.nat(),
      lone: fc.oneof(
        fc.integer({ min: 0xd800, max: 0xdbff }).map((u) => String.fromCharCode(u)),
        fc.integer({ min: 0xdc00, max: 0xdfff }).map((u) => String.fromCharCode(u)),
        // A pair in the wrong order is two lone surrogates.
        fc.constant('\udc00\ud800'),
      ),
    })
    .map(({ key, at, lone }) => {
      // Inserted between code points, a surrogate can never complete a pair of the key's own.
      const points = [...key]
      points.splice(at % (points.length + 1), 0, lone)
      return { kind: 'lone surrogate' as const, key: points.join('') }
    }),
  fc
    .record({
      key: objectKey(),
      pad: fc.constantFrom('x', 'é', '€', '😀', '/'),
      over: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 3000 })),
    })
    .map(({ key, pad, over }) => {
      // Pad to at least MAX_KEY_BYTES + over bytes.
      let long = key
      const need = MAX_KEY_BYTES + over - utf8Bytes(long)
      if (need > 0) long += pad.repeat(Math.ceil(need / utf8Bytes(pad)))
      return { kind: 'too long' as const, key: long }
    }),
)

/** Printable ASCII (0x20-0x7e), what a response override may carry. */
export function printableAscii(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: 'grapheme-ascii', minLength, maxLength })
}

/** RFC 3986 percent-encoding of UTF-8 (unreserved kept), written independently of src/. */
export function percentEncode(value: string): string {
  let out = ''
  for (const byte of encoder.encode(value)) {
    const ch = String.fromCharCode(byte)
    out += /[A-Za-z0-9\-._~]/.test(ch) ? ch : '%' + HEX_DIGITS[byte >> 4]! + HEX_DIGITS[byte & 15]!
  }
  return out
}

/** `Content-Disposition` values, plain or with an RFC 6266 `filename*=UTF-8''…` Unicode name. */
export const contentDisposition: fc.Arbitrary<string> = fc.oneof(
  printableAscii(1, 120),
  fc
    .record({
      type: fc.constantFrom('attachment', 'inline'),
      fallback: printableAscii(0, 40).map((s) => s.replace(/["\\]/g, '_')),
      name: fc.string({
        unit: fc.oneof(anyCodePoint, fc.constantFrom(...SPECIALS)),
        maxLength: 30,
      }),
    })
    .map(
      ({ type, fallback, name }) =>
        `${type}; filename="${fallback}"; filename*=UTF-8''${percentEncode(name)}`,
    ),
)

/** Lower-case letters and digits. */
export function lowerAlnum(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: charFrom(LOWER_ALNUM), minLength, maxLength })
}

/** Visible ASCII (0x21-0x7e): what access key ids, secrets, tokens and version ids are made of. */
export function visibleAscii(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength,
    maxLength,
  })
}
