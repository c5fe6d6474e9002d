// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), synchronous and specialised for SigV4's hot path.
//
// Why not Web Crypto here: in workerd every crypto.subtle call costs several microseconds whatever
// the input, and a presigned URL needs two (a SHA-256 and an HMAC). Why not a general library: SigV4's
// canonical request and string to sign are ASCII by construction (everything variable in them is
// percent-encoded), so the message is assembled from char codes straight into the hasher's memory
// with no UTF-8 encoding and no allocation, and the HMAC key's inner and outer pad blocks can be
// compressed once per signing key and reused for every URL. Key material itself is derived with Web
// Crypto (./crypto.ts).
//
// Why WebAssembly: measured in workerd, a URL's hashing costs about a quarter less than with the
// hand-unrolled JavaScript this replaced, and a whole presigned URL about a fifth less. The 64
// rounds are generated fully unrolled into ./sha256.wasm by scripts/build-wasm.mjs (its source;
// `node scripts/build-wasm.mjs` regenerates the same bytes), and a URL's whole signing step (hash
// the canonical request, append its hex to the string to sign, HMAC that) is one call over a message
// already in the module's memory.
//
// Batches sign four URLs per call: `signMessagesDigestHex` runs four independent hashes side by
// side in WebAssembly SIMD's 128-bit lanes (one i32x4 instruction does the same step of all four),
// which in workerd costs about a third of four single-lane compressions. Workers cannot compile WebAssembly at run time, so the module is
// imported precompiled: wrangler and @cloudflare/vitest-plugin load a `.wasm` import as a
// WebAssembly.Module.
//
// Inputs to `sha256AsciiHex`, `messageAscii` and `HmacSha256.signAsciiHex` must be ASCII (char
// codes < 128); the callers guarantee it. Every vector and differential test of the signer runs
// through this code.

import { isAscii } from '../bytes'
import { charCodeBytes } from './encoding'
import sha256Module from './sha256.wasm'

interface Sha256Exports {
  memory: WebAssembly.Memory
  compress(state: number, block: number): void
  signMessage(ptr: number, length: number, prefixBytes: number): void
  digest(state: number, ptr: number, length: number, prefixBytes: number): void
  signMessageDigest(ptr: number, length: number, tailLength: number, prefixBytes: number): void
  signMessages4(tailLength: number, prefixBytes: number): void
}

const wasm = new WebAssembly.Instance(sha256Module).exports as unknown as Sha256Exports

// The module's memory layout, in bytes (scripts/build-wasm.mjs documents each area).
const HASH = 0
const INNER = 32
const OUTER = 64
const WORK = 96
const BLOCK = 128
const STS = 192
const LANES = 512
const WORK4 = 768
const STS4 = 1152
const STS4_LANE_BYTES = 256
const MSG = 2304
// The hasher pads in place: 0x80, zeros and the 8-byte length after the message.
const PADDING_ROOM = 72

/** How many messages `signMessagesDigestHex` signs at once. */
export const SIGN_LANES = 4
const PAGE_BYTES = 65536

const IV = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
])

// Views of the module's memory, replaced when it grows (growing detaches the old buffer).
let bytes = new Uint8Array(wasm.memory.buffer)
let words = new Int32Array(wasm.memory.buffer)
// The message being assembled starts at `messageBase`; `messageNext` records it as lane
// `laneCount` (its pointer and length at LANES) and starts another after it and its padding room.
let messageBase = MSG
let messageLength = 0
let laneCount = 0

function ensure(extra: number): void {
  const needed = messageBase + messageLength + extra + PADDING_ROOM
  if (needed <= bytes.length) return
  wasm.memory.grow(Math.ceil((needed - bytes.length) / PAGE_BYTES))
  bytes = new Uint8Array(wasm.memory.buffer)
  words = new Int32Array(wasm.memory.buffer)
}

/** Starts a new message in the shared buffer (and a new group of messages). */
export function messageStart(): void {
  messageBase = MSG
  messageLength = 0
  laneCount = 0
}

/**
 * Ends the current message and starts the next of a group that `signMessagesDigestHex` signs
 * together (at most `SIGN_LANES` messages after a `messageStart`).
 */
export function messageNext(): void {
  if (laneCount === SIGN_LANES - 1) throw new RangeError(`more than ${SIGN_LANES} messages`)
  recordLane(laneCount++)
  // Four-byte aligned, after the padding the hasher writes past the message.
  messageBase = (messageBase + messageLength + PADDING_ROOM + 3) & ~3
  messageLength = 0
  ensure(0)
}

function recordLane(lane: number): void {
  words[(LANES >> 2) + 2 * lane] = messageBase
  words[(LANES >> 2) + 2 * lane + 1] = messageLength
}

/** Appends ASCII text (char codes < 128) to the message. */
export function messageAscii(text: string): void {
  const length = text.length
  ensure(length)
  // Locals, not the module-level variables, inside the loop: V8 keeps them in registers.
  const out = bytes
  const start = messageBase + messageLength
  for (let i = 0; i < length; i++) out[start + i] = text.charCodeAt(i)
  messageLength += length
}

/** Appends bytes (a pre-encoded constant) to the message. */
export function messageBytes(piece: Uint8Array): void {
  ensure(piece.length)
  bytes.set(piece, messageBase + messageLength)
  messageLength += piece.length
}

/** The char codes of the hex digits, and those of a digest being written out (by its words). */
const HEX_CODES = Array.from('0123456789abcdef', (c) => c.charCodeAt(0))
const hexCodesOf: number[][] = Array.from({ length: 9 }, (_, n) => new Array<number>(8 * n).fill(0))

/**
 * Lower-case hex of the state at byte offset `at`, whose words are `stride` words apart (4 in a
 * transposed 4-lane state). Made in one call from its char codes, so the string is flat: appended
 * two digits at a time it would be a rope of ropes, which every URL it goes into pays to flatten.
 */
function stateHex(at: number, stride = 1, count = 8): string {
  const state = words
  const first = at >> 2
  const hexCodes = hexCodesOf[count]!
  let k = 0
  for (let i = first; i < first + count * stride; i += stride) {
    const w = state[i]!
    for (let shift = 28; shift >= 0; shift -= 4) hexCodes[k++] = HEX_CODES[(w >>> shift) & 15]!
  }
  return String.fromCharCode.apply(null, hexCodes)
}

/** Lower-case hex SHA-256 of the message assembled with `messageStart` and `messageAscii`/`Bytes`. */
export function messageSha256Hex(): string {
  digestMessage()
  return stateHex(HASH)
}

/** `messageSha256Hex`, as bytes. */
function messageSha256(): Uint8Array {
  digestMessage()
  return stateBytes(HASH)
}

/** Hashes the assembled message into the state at HASH. */
function digestMessage(): void {
  words.set(IV, HASH >> 2)
  wasm.digest(HASH, messageBase, messageLength, 0)
}

/** Big-endian bytes of the state at byte offset `at`. */
function stateBytes(at: number): Uint8Array {
  const out = new Uint8Array(32)
  for (let i = 0; i < 8; i++) {
    const w = words[(at >> 2) + i]!
    out[4 * i] = w >>> 24
    out[4 * i + 1] = (w >>> 16) & 0xff
    out[4 * i + 2] = (w >>> 8) & 0xff
    out[4 * i + 3] = w & 0xff
  }
  return out
}

/**
 * SHA-256 of bytes, synchronously: an API key's hash on every request costs a fraction of a
 * `crypto.subtle.digest` call in workerd.
 */
export function sha256(data: Uint8Array): Uint8Array {
  messageStart()
  messageBytes(data)
  return messageSha256()
}

const utf8 = new TextEncoder()

/**
 * SHA-256 of `text`'s UTF-8: ASCII (an API key, a caller's name) goes into the hasher as it is,
 * anything else through TextEncoder, whose call alone costs about half a microsecond in workerd.
 */
export function sha256Text(text: string): Uint8Array {
  if (!isAscii(text)) return sha256(utf8.encode(text))
  messageStart()
  messageAscii(text)
  return messageSha256()
}

/** Lower-case hex SHA-256 of an ASCII string. */
export function sha256AsciiHex(text: string): string {
  messageStart()
  messageAscii(text)
  return messageSha256Hex()
}

/** `from` after compressing one 64-byte block, which the caller has written at BLOCK. */
function compressBlock(from: Int32Array): Int32Array {
  words.set(from, WORK >> 2)
  wasm.compress(WORK, BLOCK)
  return words.slice(WORK >> 2, (WORK >> 2) + 8)
}

/** The state after one block of the (≤ 64-byte) key XOR `pad`. */
function padState(key: Uint8Array, pad: number): Int32Array {
  for (let j = 0; j < 64; j++) bytes[BLOCK + j] = (key[j] ?? 0) ^ pad
  return compressBlock(IV)
}

/** `from` after the complete 64-byte blocks of the ASCII `text`. */
function absorbBlocks(text: string, from: Int32Array): Int32Array {
  let state = from
  for (let i = 0; i + 64 <= text.length; i += 64) {
    for (let j = 0; j < 64; j++) bytes[BLOCK + j] = text.charCodeAt(i + j)
    state = compressBlock(state)
  }
  return state
}

// The key whose states and prefix tail are in INNER, OUTER and STS: a batch signs with one key, so
// they are copied into the module's memory once, not per URL. Nothing else writes those areas.
let loadedKey: HmacSha256 | undefined

/**
 * HMAC-SHA-256 with a fixed key (a key longer than a block is hashed first, as RFC 2104 says), its
 * pad blocks compressed once, and optionally
 * a fixed message prefix whose whole blocks are compressed once too (SigV4's string to sign starts
 * with the same algorithm, date and scope for every URL of a batch).
 *
 * @example
 * const mac = new HmacSha256(signingKeyBytes).withPrefix(`AWS4-HMAC-SHA256\n${date}\n${scope}\n`)
 * const signature = mac.signAsciiHex(canonicalRequestHash)
 */
export class HmacSha256 {
  readonly #inner: Int32Array
  readonly #outer: Int32Array
  readonly #prefixTail: string
  readonly #prefixTailBytes: Uint8Array
  readonly #prefixBytes: number

  constructor(
    key: Uint8Array,
    state?: { inner: Int32Array; outer: Int32Array; tail: string; bytes: number },
  ) {
    if (state !== undefined) {
      this.#inner = state.inner
      this.#outer = state.outer
      this.#prefixTail = state.tail
      this.#prefixBytes = state.bytes
    } else {
      const blockKey = key.length > 64 ? sha256(key) : key
      this.#inner = padState(blockKey, 0x36)
      this.#outer = padState(blockKey, 0x5c)
      this.#prefixTail = ''
      this.#prefixBytes = 64
    }
    this.#prefixTailBytes = charCodeBytes(this.#prefixTail)
  }

  /** The same key with `prefix` (ASCII) placed before every message. */
  withPrefix(prefix: string): HmacSha256 {
    const text = this.#prefixTail + prefix
    const whole = text.length - (text.length % 64)
    return new HmacSha256(new Uint8Array(0), {
      inner: absorbBlocks(text.slice(0, whole), this.#inner),
      outer: this.#outer,
      tail: text.slice(whole),
      bytes: this.#prefixBytes + whole,
    })
  }

  /** Lower-case hex HMAC of an ASCII message (after the prefix, if any). */
  signAsciiHex(message: string): string {
    this.#sign(message)
    return stateHex(WORK)
  }

  /** The HMAC of an ASCII message (after the prefix, if any), as bytes. */
  signAscii(message: string): Uint8Array {
    this.#sign(message)
    return stateBytes(WORK)
  }

  /** The HMAC of any bytes (after the prefix, if any): UTF-8 text such as a webhook's body. */
  signBytes(message: Uint8Array): Uint8Array {
    this.#sign(message)
    return stateBytes(WORK)
  }

  /** Signs the prefix's tail, then `message`: ASCII text, or bytes as they are. */
  #sign(message: string | Uint8Array): void {
    this.#load()
    messageStart()
    messageAscii(this.#prefixTail)
    if (typeof message === 'string') messageAscii(message)
    else messageBytes(message)
    wasm.signMessage(messageBase, messageLength, this.#prefixBytes)
  }

  /**
   * Lower-case hex HMAC of the hex SHA-256 of the assembled message (after the prefix): SigV4's
   * signature over its canonical request, without building either string.
   */
  signMessageDigestHex(): string {
    this.#signOne()
    return stateHex(WORK)
  }

  #signOne(): void {
    this.#load()
    wasm.signMessageDigest(
      messageBase,
      messageLength,
      this.#prefixTailBytes.length,
      this.#prefixBytes,
    )
  }

  /**
   * `signMessageDigestHex` of each message of the group assembled since `messageStart` (separated
   * by `messageNext`), in order. Two to four messages are signed together in SIMD lanes. With
   * `wordCount` (1 to 8), each is the hex of the MAC's first `wordCount` 32-bit words only: a truncated
   * tag written out at once, not sliced from the whole.
   */
  signMessagesDigestHex(wordCount = 8): string[] {
    if (laneCount === 0) {
      this.#signOne()
      return [stateHex(WORK, 1, wordCount)]
    }
    this.#load()
    const count = laneCount + 1
    recordLane(laneCount)
    // Idle lanes hash the first message again (its padding is rewritten with the same bytes).
    for (let lane = count; lane < SIGN_LANES; lane++) {
      words[(LANES >> 2) + 2 * lane] = words[LANES >> 2]!
      words[(LANES >> 2) + 2 * lane + 1] = words[(LANES >> 2) + 1]!
    }
    wasm.signMessages4(this.#prefixTailBytes.length, this.#prefixBytes)
    const signatures: string[] = []
    for (let lane = 0; lane < count; lane++)
      signatures.push(stateHex(WORK4 + 4 * lane, 4, wordCount))
    return signatures
  }

  #load(): void {
    if (loadedKey === this) return
    words.set(this.#inner, INNER >> 2)
    words.set(this.#outer, OUTER >> 2)
    bytes.set(this.#prefixTailBytes, STS)
    for (let lane = 0; lane < SIGN_LANES; lane++) {
      bytes.set(this.#prefixTailBytes, STS4 + STS4_LANE_BYTES * lane)
    }
    // Not an alias: which key's states are in module memory now.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    loadedKey = this
  }
}
