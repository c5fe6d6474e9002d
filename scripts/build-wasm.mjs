// Generates src/core/sigv4/sha256.wasm, the WebAssembly SHA-256 / HMAC-SHA-256 behind
// src/core/sigv4/sha256.ts. This script is the source: the functions are written below in
// WebAssembly text-format instructions and encoded here into the binary format
// (https://webassembly.github.io/spec/core/binary/), so no assembler or compiler toolchain is needed
// and the output is byte-for-byte reproducible.
//
//   node scripts/build-wasm.mjs          # (re)writes src/core/sigv4/sha256.wasm
//   node scripts/build-wasm.mjs --check  # exits 1 if the committed binary is not what this emits
//
// Why generate: the 64 rounds are fully unrolled, the eight working variables rotate by renaming
// and the message schedule lives in 16 rolling locals, so the compiled compression is straight-line
// register arithmetic whose only memory traffic is the block and state loads.
//
// Memory layout (byte offsets; sha256.ts mirrors them):
//   0     HASH    the canonical request's state (SHA-256 of the message)
//   32    INNER   the HMAC key's inner state (ipad block and the prefix's whole blocks absorbed)
//   64    OUTER   the HMAC key's outer state (opad block absorbed)
//   96    WORK    the HMAC's running state, then its result
//   128   BLOCK   the outer hash's single block (inner digest and padding)
//   192   STS     the string to sign's tail: the prefix's partial block, then the hex digest
//   512   LANES   four (pointer, length) pairs: the messages a 4-lane call hashes
//   544   COUNTS  four block counts, one per lane (i32x4)
//   640   HASH4   four lanes' canonical request states
//   768   WORK4   four lanes' HMAC states, then their results
//   896   BLOCK4  four lanes' outer blocks, 64 bytes each
//   1152  STS4    four lanes' strings to sign (tails), 256 bytes each
//   2304  MSG     the messages being hashed, up to the end of memory (JS grows memory as needed)
// Every state is eight i32 words in native (little-endian) order, as an Int32Array reads them; a
// 4-lane state is transposed: word i of lanes 0–3 is the i32x4 at 16 × i, so one SIMD instruction
// works on the same word of four independent hashes ("multi-buffer" hashing).

import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'src/core/sigv4/sha256.wasm')

const LAYOUT = {
  HASH: 0,
  INNER: 32,
  OUTER: 64,
  WORK: 96,
  BLOCK: 128,
  STS: 192,
  LANES: 512,
  COUNTS: 544,
  HASH4: 640,
  WORK4: 768,
  BLOCK4: 896,
  STS4: 1152,
  MSG: 2304,
}
const STS4_LANE_BYTES = 256

// FIPS 180-4 §4.2.2 and §5.3.3.
const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]
const IV = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]

// --- The functions, in text-format instructions ------------------------------------------------
// `$name` is a parameter or local of the function being written; `call $name` a function below.

/** Byte swap of the i32 in `$x` (message words are big-endian): two rotates, two masks. */
const bswap = (x) => `
  local.get ${x} i32.const 8 i32.rotr i32.const 0xff00ff00 i32.and
  local.get ${x} i32.const 24 i32.rotr i32.const 0x00ff00ff i32.and
  i32.or`

const letters = ['$a', '$b', '$c', '$d', '$e', '$f', '$g', '$h']
const words = Array.from({ length: 16 }, (_, i) => `$w${i}`)

/** compress(state, block): one SHA-256 compression (FIPS 180-4 §6.2.2) of `block` into `state`. */
function compress() {
  let text = ''
  letters.forEach((v, i) => (text += `local.get $state i32.load offset=${i * 4} local.set ${v}\n`))
  words.forEach((w, i) => {
    text += `local.get $block i32.load offset=${i * 4} local.set ${w} ${bswap(w)} local.set ${w}\n`
  })
  // `names` are the locals holding a..h in this round: renaming replaces the h = g; g = f; …
  // shuffle, and after 64 rounds (a multiple of 8) every name is back in place.
  let names = letters
  // Maj(a, b, c) = b ^ ((a ^ b) & (b ^ c)), and this round's b ^ c is the last round's a ^ b: it is
  // carried over in one of two alternating locals.
  let [ab, bc] = ['$x', '$y']
  text += `local.get $b local.get $c i32.xor local.set ${bc}\n`
  for (let t = 0; t < 64; t++) {
    const [a, b, c, d, e, f, g, h] = names
    const w = words[t & 15]
    if (t >= 16) {
      // W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], stored over W[t-16].
      const w2 = words[(t - 2) & 15]
      const w15 = words[(t - 15) & 15]
      text += `
        local.get ${w2} i32.const 17 i32.rotr local.get ${w2} i32.const 19 i32.rotr i32.xor
        local.get ${w2} i32.const 10 i32.shr_u i32.xor
        local.get ${words[(t - 7) & 15]} i32.add
        local.get ${w15} i32.const 7 i32.rotr local.get ${w15} i32.const 18 i32.rotr i32.xor
        local.get ${w15} i32.const 3 i32.shr_u i32.xor i32.add
        local.get ${w} i32.add local.set ${w}`
    }
    // Sums are ordered so the terms that do not depend on the previous round (h, K[t], W[t]) are
    // added first, off the critical path.
    text += `
      ;; T1 = h + K[t] + W[t] + Ch(e, f, g) + Σ1(e), with Ch(e, f, g) = g ^ (e & (f ^ g))
      local.get ${h} i32.const ${K[t]} i32.add local.get ${w} i32.add
      local.get ${g} local.get ${e} local.get ${f} local.get ${g} i32.xor i32.and i32.xor i32.add
      local.get ${e} i32.const 6 i32.rotr local.get ${e} i32.const 11 i32.rotr i32.xor
      local.get ${e} i32.const 25 i32.rotr i32.xor i32.add
      local.set $t1
      ;; d += T1
      local.get ${d} local.get $t1 i32.add local.set ${d}
      ;; h = T1 + Maj(a, b, c) + Σ0(a)
      local.get $t1
      local.get ${b} local.get ${a} local.get ${b} i32.xor local.tee ${ab} local.get ${bc} i32.and
      i32.xor i32.add
      local.get ${a} i32.const 2 i32.rotr local.get ${a} i32.const 13 i32.rotr i32.xor
      local.get ${a} i32.const 22 i32.rotr i32.xor i32.add
      local.set ${h}`
    names = [h, a, b, c, d, e, f, g]
    ;[ab, bc] = [bc, ab]
  }
  letters.forEach((v, i) => {
    text += `
      local.get $state local.get $state i32.load offset=${i * 4} local.get ${v} i32.add
      i32.store offset=${i * 4}`
  })
  return { params: ['$state', '$block'], locals: [...letters, ...words, '$t1', '$x', '$y'], text }
}

/**
 * pad(ptr, length, prefixBytes) → end: pads the `length` bytes at `ptr` in place (FIPS 180-4
 * §5.1.1: 0x80, zeros, then the bit length, counting the `prefixBytes` already absorbed, as a
 * 64-bit big-endian integer) and returns the address past the last block. It writes up to 72 bytes
 * past the message.
 */
const pad = {
  params: ['$ptr', '$length', '$prefixBytes'],
  results: ['i32'],
  locals: ['$end', '$x'],
  text: `
    ;; end = ptr + ((length + 9 + 63) & ~63)
    local.get $ptr local.get $length i32.const 72 i32.add i32.const -64 i32.and i32.add
    local.set $end
    local.get $ptr local.get $length i32.add i32.const 0x80 i32.store8 offset=0
    ;; zeros from ptr + length + 1 to end - 8
    local.get $ptr local.get $length i32.add i32.const 1 i32.add
    i32.const 0
    local.get $end i32.const 8 i32.sub local.get $ptr local.get $length i32.add i32.const 1 i32.add
    i32.sub
    memory.fill
    local.get $end i32.const 8 i32.sub
    local.get $prefixBytes local.get $length i32.add i32.const 29 i32.shr_u local.set $x
    ${bswap('$x')} i32.store offset=0
    local.get $end i32.const 4 i32.sub
    local.get $prefixBytes local.get $length i32.add i32.const 3 i32.shl local.set $x
    ${bswap('$x')} i32.store offset=0
    local.get $end`,
}

/**
 * digest(state, ptr, length, prefixBytes): pads the `length` bytes at `ptr` in place (see pad) and
 * compresses every block into `state`.
 */
const digest = {
  params: ['$state', '$ptr', '$length', '$prefixBytes'],
  locals: ['$end'],
  text: `
    local.get $ptr local.get $length local.get $prefixBytes call $pad local.set $end
    ;; do compress(state, ptr) while ((ptr += 64) < end)
    loop
      local.get $state local.get $ptr call $compress
      local.get $ptr i32.const 64 i32.add local.tee $ptr local.get $end i32.lt_u br_if 0
    end`,
}

/**
 * Stores the lower-case hex of eight state words (`load(i)` pushes word i) at `$out`. Nibble n
 * becomes '0' + n, plus 39 ('a' - '0' - 10) when n > 9, i.e. when 9 - n is negative.
 */
function hex(load) {
  let text = ''
  for (let i = 0; i < 8; i++) {
    text += `\n${load(i)} local.set $x`
    for (let k = 0; k < 8; k++) {
      text += `
        local.get $out
        local.get $x i32.const ${28 - 4 * k} i32.shr_u i32.const 15 i32.and local.tee $n
        i32.const 48 i32.add
        i32.const 9 local.get $n i32.sub i32.const 31 i32.shr_s i32.const 39 i32.and i32.add
        i32.store8 offset=${i * 8 + k}`
    }
  }
  return text
}

/**
 * hmacOuter(): RFC 2104's outer hash. WORK holds the inner hash's state; the outer message is the
 * 32-byte inner digest after the opad block, so it is one block compressed into a copy of OUTER,
 * left in WORK.
 */
function hmacOuter() {
  let text = ''
  for (let i = 0; i < 8; i++) {
    text += `
      i32.const ${LAYOUT.BLOCK}
      i32.const ${LAYOUT.WORK} i32.load offset=${i * 4} local.set $x ${bswap('$x')}
      i32.store offset=${i * 4}`
  }
  // 0x80, zeros, and the bit length (64 + 32) * 8 = 0x300, big-endian in the block's last bytes.
  text += `
    i32.const ${LAYOUT.BLOCK} i32.const 0x80 i32.store offset=32
    i32.const ${LAYOUT.BLOCK + 36} i32.const 0 i32.const 24 memory.fill
    i32.const ${LAYOUT.BLOCK} i32.const 0x00030000 i32.store offset=60
    i32.const ${LAYOUT.WORK} i32.const ${LAYOUT.OUTER} i32.const 32 memory.copy
    i32.const ${LAYOUT.WORK} i32.const ${LAYOUT.BLOCK} call $compress`
  return { params: [], locals: ['$x'], text }
}

/** signMessage(ptr, length, prefixBytes): the HMAC of the message at ptr (after the prefix) into WORK. */
const signMessage = {
  params: ['$ptr', '$length', '$prefixBytes'],
  locals: [],
  text: `
    i32.const ${LAYOUT.WORK} i32.const ${LAYOUT.INNER} i32.const 32 memory.copy
    i32.const ${LAYOUT.WORK} local.get $ptr local.get $length local.get $prefixBytes
    call $digest
    call $hmacOuter`,
}

/**
 * signMessageDigest(ptr, length, tailLength, prefixBytes): SigV4's signing step in one call. The
 * SHA-256 of the canonical request at `ptr` goes into HASH, its lower-case hex is appended to the
 * `tailLength` bytes of the string to sign already at STS, and the HMAC of that (after the
 * prefix) goes into WORK.
 */
function signMessageDigest() {
  let text = ''
  IV.forEach(
    (v, i) => (text += `i32.const ${LAYOUT.HASH} i32.const ${v} i32.store offset=${i * 4}\n`),
  )
  text += `
    i32.const ${LAYOUT.HASH} local.get $ptr local.get $length i32.const 0 call $digest
    i32.const ${LAYOUT.STS} local.get $tailLength i32.add local.set $out`
  text += hex((i) => `i32.const ${LAYOUT.HASH} i32.load offset=${i * 4}`)
  text += `
    i32.const ${LAYOUT.WORK} i32.const ${LAYOUT.INNER} i32.const 32 memory.copy
    i32.const ${LAYOUT.WORK} i32.const ${LAYOUT.STS} local.get $tailLength i32.const 64 i32.add
    local.get $prefixBytes call $digest
    call $hmacOuter`
  return {
    params: ['$ptr', '$length', '$tailLength', '$prefixBytes'],
    locals: ['$out', '$x', '$n'],
    text,
  }
}

// --- Four lanes at once (WebAssembly SIMD: i32x4) ---------------------------------------------

const splat4 = (value) => `v128.const i32x4 ${value} ${value} ${value} ${value}`
/** Rotate right of each i32 lane of `$x` by k (SIMD has no rotate: two shifts and an or). */
const rotr4 = (x, k) =>
  `local.get ${x} i32.const ${k} i32x4.shr_u local.get ${x} i32.const ${32 - k} i32x4.shl v128.or`
const lanes = [0, 1, 2, 3]

/**
 * compress4(state, p0, p1, p2, p3, mask): one compression in each of four lanes, lane L's block at
 * pL, into the transposed 4-lane `state`; a lane whose `mask` is zero keeps its state.
 */
function compress4() {
  let text = ''
  // Lane L's 16 words, transposed into W[j] = (word j of lanes 0–3) and byte-swapped by shuffles:
  // for each 16-byte quarter q of the four blocks, pair up lanes 0/1 and 2/3, then merge the halves.
  const swapped = (x, y) => [
    x * 4 + 3,
    x * 4 + 2,
    x * 4 + 1,
    x * 4,
    y * 4 + 3,
    y * 4 + 2,
    y * 4 + 1,
    y * 4,
  ]
  const low = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]
  const high = low.map((i) => i + 8)
  for (let q = 0; q < 4; q++) {
    lanes.forEach((L) => (text += `local.get $p${L} v128.load offset=${16 * q} local.set $v${L}\n`))
    // $s0 = words 0, 1 of lanes 0, 1 interleaved (w0L0 w0L1 w1L0 w1L1), $s1 = words 2, 3; $s2, $s3
    // the same for lanes 2, 3. (A shuffle's second operand is bytes 16–31.)
    const pairs = [
      ['$v0', '$v1', [...swapped(0, 4), ...swapped(1, 5)], '$s0'],
      ['$v0', '$v1', [...swapped(2, 6), ...swapped(3, 7)], '$s1'],
      ['$v2', '$v3', [...swapped(0, 4), ...swapped(1, 5)], '$s2'],
      ['$v2', '$v3', [...swapped(2, 6), ...swapped(3, 7)], '$s3'],
    ]
    for (const [x, y, order, out] of pairs) {
      text += `local.get ${x} local.get ${y} i8x16.shuffle ${order.join(' ')} local.set ${out}\n`
    }
    text += `
      local.get $s0 local.get $s2 i8x16.shuffle ${low.join(' ')} local.set $w${4 * q}
      local.get $s0 local.get $s2 i8x16.shuffle ${high.join(' ')} local.set $w${4 * q + 1}
      local.get $s1 local.get $s3 i8x16.shuffle ${low.join(' ')} local.set $w${4 * q + 2}
      local.get $s1 local.get $s3 i8x16.shuffle ${high.join(' ')} local.set $w${4 * q + 3}\n`
  }
  letters.forEach(
    (v, i) => (text += `local.get $state v128.load offset=${i * 16} local.set ${v}\n`),
  )
  // The same rounds as compress, lane-wise.
  let names = letters
  let [ab, bc] = ['$x', '$y']
  text += `local.get $b local.get $c v128.xor local.set ${bc}\n`
  for (let t = 0; t < 64; t++) {
    const [a, b, c, d, e, f, g, h] = names
    const w = words[t & 15]
    if (t >= 16) {
      const w2 = words[(t - 2) & 15]
      const w15 = words[(t - 15) & 15]
      text += `
        ${rotr4(w2, 17)} ${rotr4(w2, 19)} v128.xor local.get ${w2} i32.const 10 i32x4.shr_u v128.xor
        local.get ${words[(t - 7) & 15]} i32x4.add
        ${rotr4(w15, 7)} ${rotr4(w15, 18)} v128.xor local.get ${w15} i32.const 3 i32x4.shr_u v128.xor
        i32x4.add local.get ${w} i32x4.add local.set ${w}`
    }
    text += `
      local.get ${h} ${splat4(K[t])} i32x4.add local.get ${w} i32x4.add
      local.get ${g} local.get ${e} local.get ${f} local.get ${g} v128.xor v128.and v128.xor i32x4.add
      ${rotr4(e, 6)} ${rotr4(e, 11)} v128.xor ${rotr4(e, 25)} v128.xor i32x4.add
      local.set $t1
      local.get ${d} local.get $t1 i32x4.add local.set ${d}
      local.get $t1
      local.get ${b} local.get ${a} local.get ${b} v128.xor local.tee ${ab} local.get ${bc} v128.and
      v128.xor i32x4.add
      ${rotr4(a, 2)} ${rotr4(a, 13)} v128.xor ${rotr4(a, 22)} v128.xor i32x4.add
      local.set ${h}`
    names = [h, a, b, c, d, e, f, g]
    ;[ab, bc] = [bc, ab]
  }
  letters.forEach((v, i) => {
    text += `
      local.get $state local.get $state v128.load offset=${i * 16}
      local.get ${v} local.get $mask v128.and i32x4.add v128.store offset=${i * 16}`
  })
  const vectors = [...letters, ...words, '$t1', '$x', '$y', '$v0', '$v1', '$v2', '$v3']
  return {
    params: ['$state', '$p0', '$p1', '$p2', '$p3', '$mask:v128'],
    locals: [...vectors, '$s0', '$s1', '$s2', '$s3'].map((name) => `${name}:v128`),
    text,
  }
}

/**
 * digest4(state, prefixBytes): for each lane L, pads the message whose (pointer, length) is at
 * LANES + 8 × L (see pad) and compresses its blocks into lane L of `state`. Lanes with fewer blocks
 * are masked off while the longest finishes.
 */
function digest4() {
  let text = ''
  lanes.forEach((L) => {
    text += `
      i32.const ${LAYOUT.LANES} i32.load offset=${8 * L} local.tee $p${L}
      i32.const ${LAYOUT.LANES} i32.load offset=${8 * L + 4} local.get $prefixBytes call $pad
      local.get $p${L} i32.sub i32.const 6 i32.shr_u local.set $n${L}
      i32.const ${LAYOUT.COUNTS} local.get $n${L} i32.store offset=${4 * L}
      ;; most = max(most, nL)
      local.get $n${L} local.get $most local.get $n${L} local.get $most i32.gt_u select local.set $most`
  })
  text += `
    i32.const ${LAYOUT.COUNTS} v128.load offset=0 local.set $counts
    loop
      local.get $state`
  // Lane L's block k, or (finished, masked off) its first block.
  lanes.forEach((L) => {
    text += `
      local.get $p${L} local.get $k i32.const 6 i32.shl i32.add local.get $p${L}
      local.get $k local.get $n${L} i32.lt_u select`
  })
  text += `
      local.get $counts local.get $k i32x4.splat i32x4.gt_u
      call $compress4
      local.get $k i32.const 1 i32.add local.tee $k local.get $most i32.lt_u br_if 0
    end`
  const scalars = ['$p0', '$p1', '$p2', '$p3', '$n0', '$n1', '$n2', '$n3', '$most', '$k']
  return { params: ['$state', '$prefixBytes'], locals: [...scalars, '$counts:v128'], text }
}

/**
 * signMessages4(tailLength, prefixBytes): signMessageDigest for four canonical requests at once,
 * lane L's at the (pointer, length) at LANES + 8 × L, its string to sign's tail (the `tailLength`
 * bytes of the prefix's partial block) already at STS4 + 256 × L. The four results are left in
 * WORK4.
 */
function signMessages4() {
  let text = ''
  IV.forEach(
    (v, i) => (text += `i32.const ${LAYOUT.HASH4} ${splat4(v)} v128.store offset=${16 * i}\n`),
  )
  text += `i32.const ${LAYOUT.HASH4} i32.const 0 call $digest4\n`
  lanes.forEach((L) => {
    const sts = LAYOUT.STS4 + STS4_LANE_BYTES * L
    text += `
      i32.const ${sts} local.get $tailLength i32.add local.set $out
      ${hex((i) => `i32.const ${LAYOUT.HASH4 + 4 * L} i32.load offset=${16 * i}`)}
      i32.const ${LAYOUT.LANES} i32.const ${sts} i32.store offset=${8 * L}
      i32.const ${LAYOUT.LANES} local.get $tailLength i32.const 64 i32.add i32.store offset=${8 * L + 4}`
  })
  for (let i = 0; i < 8; i++) {
    text += `\ni32.const ${LAYOUT.WORK4} i32.const ${LAYOUT.INNER} v128.load32_splat offset=${4 * i} v128.store offset=${16 * i}`
  }
  text += `\ni32.const ${LAYOUT.WORK4} local.get $prefixBytes call $digest4`
  // The outer hashes: each lane's inner digest and padding (as in hmacOuter), from OUTER.
  lanes.forEach((L) => {
    const block = LAYOUT.BLOCK4 + 64 * L
    for (let i = 0; i < 8; i++) {
      text += `
        i32.const ${block}
        i32.const ${LAYOUT.WORK4 + 4 * L} i32.load offset=${16 * i} local.set $x ${bswap('$x')}
        i32.store offset=${4 * i}`
    }
    text += `
      i32.const ${block} i32.const 0x80 i32.store offset=32
      i32.const ${block + 36} i32.const 0 i32.const 24 memory.fill
      i32.const ${block} i32.const 0x00030000 i32.store offset=60`
  })
  for (let i = 0; i < 8; i++) {
    text += `\ni32.const ${LAYOUT.WORK4} i32.const ${LAYOUT.OUTER} v128.load32_splat offset=${4 * i} v128.store offset=${16 * i}`
  }
  text += `
    i32.const ${LAYOUT.WORK4}
    ${lanes.map((L) => `i32.const ${LAYOUT.BLOCK4 + 64 * L}`).join(' ')}
    ${splat4(-1)}
    call $compress4`
  return { params: ['$tailLength', '$prefixBytes'], locals: ['$out', '$x', '$n'], text }
}

const FUNCTIONS = {
  $compress: compress(),
  $pad: pad,
  $digest: digest,
  $hmacOuter: hmacOuter(),
  $signMessage: signMessage,
  $signMessageDigest: signMessageDigest(),
  $compress4: compress4(),
  $digest4: digest4(),
  $signMessages4: signMessages4(),
}
const EXPORTS = ['compress', 'digest', 'signMessage', 'signMessageDigest', 'signMessages4']

// --- A text-format subset, encoded to binary ---------------------------------------------------

function uleb(value) {
  const out = []
  do {
    let byte = value & 0x7f
    value >>>= 7
    if (value !== 0) byte |= 0x80
    out.push(byte)
  } while (value !== 0)
  return out
}

function sleb(value) {
  const out = []
  for (value |= 0; ;) {
    const byte = value & 0x7f
    value >>= 7
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      out.push(byte)
      return out
    }
    out.push(byte | 0x80)
  }
}

const vec = (items) => [...uleb(items.length), ...items.flat()]
const section = (id, body) => [id, ...uleb(body.length), ...body]
const TYPES = { i32: 0x7f, v128: 0x7b }
/** A parameter or local `$name` is an i32, `$name:v128` a v128. */
const typeOf = (declared) => TYPES[declared.split(':')[1] ?? 'i32']
const nameOf = (declared) => declared.split(':')[0]

// Opcodes (https://webassembly.github.io/spec/core/binary/instructions.html); memory.fill and
// memory.copy are from bulk memory, the 0xfd ones from fixed-width SIMD (v128), both in every
// engine since 2021.
const simd = (opcode) => [0xfd, ...uleb(opcode)]
const PLAIN = {
  'i32.add': [0x6a],
  'i32.sub': [0x6b],
  'i32.and': [0x71],
  'i32.or': [0x72],
  'i32.xor': [0x73],
  'i32.shl': [0x74],
  'i32.shr_s': [0x75],
  'i32.shr_u': [0x76],
  'i32.rotr': [0x78],
  'i32.lt_u': [0x49],
  'i32.gt_u': [0x4b],
  select: [0x1b],
  'memory.copy': [0xfc, 10, 0, 0],
  'memory.fill': [0xfc, 11, 0],
  end: [0x0b],
  loop: [0x03, 0x40],
  'i32x4.splat': simd(17),
  'i32x4.gt_u': simd(60),
  'v128.and': simd(78),
  'v128.or': simd(80),
  'v128.xor': simd(81),
  'i32x4.shl': simd(171),
  'i32x4.shr_u': simd(173),
  'i32x4.add': simd(174),
}
const LOCAL = { 'local.get': 0x20, 'local.set': 0x21, 'local.tee': 0x22 }
// Opcode and alignment (log2 of the natural alignment).
const MEMORY = {
  'i32.load': [0x28, 2],
  'i32.store': [0x36, 2],
  'i32.store8': [0x3a, 0],
  'v128.load': [...simd(0), 4],
  'v128.load32_splat': [...simd(9), 2],
  'v128.store': [...simd(11), 4],
}

function encodeBody({ params, locals, text }, functionIndex) {
  const index = new Map([...params, ...locals].map((declared, i) => [nameOf(declared), i]))
  const tokens = text
    .replace(/;;.*$/gm, '')
    .split(/\s+/)
    .filter((token) => token !== '')
  const code = []
  for (let i = 0; i < tokens.length; i++) {
    const op = tokens[i]
    const operand = () => tokens[++i] ?? fail(`${op} needs an operand`)
    if (op in PLAIN) code.push(...PLAIN[op])
    else if (op in LOCAL) {
      const name = operand()
      if (!index.has(name)) fail(`unknown local ${name}`)
      code.push(LOCAL[op], ...uleb(index.get(name)))
    } else if (op in MEMORY) {
      const offset = /^offset=(\d+)$/.exec(operand()) ?? fail(`${op} needs offset=N`)
      code.push(...MEMORY[op], ...uleb(Number(offset[1])))
    } else if (op === 'i32.const') code.push(0x41, ...sleb(Number(operand())))
    else if (op === 'v128.const') {
      if (operand() !== 'i32x4') fail('v128.const takes i32x4 and four values')
      const lanes = new Int32Array(Array.from({ length: 4 }, () => Number(operand())))
      code.push(...simd(12), ...new Uint8Array(lanes.buffer))
    } else if (op === 'i8x16.shuffle') {
      code.push(...simd(13), ...Array.from({ length: 16 }, () => Number(operand())))
    } else if (op === 'call') code.push(0x10, ...uleb(functionIndex(operand())))
    else if (op === 'br_if') code.push(0x0d, ...uleb(Number(operand())))
    else fail(`unknown instruction ${op}`)
  }
  // Locals are declared in runs of one type.
  const runs = []
  for (const declared of locals) {
    const type = typeOf(declared)
    if (runs.length > 0 && runs.at(-1)[1] === type) runs.at(-1)[0]++
    else runs.push([1, type])
  }
  const declared = runs.map(([count, type]) => [...uleb(count), type])
  const body = [...vec(declared), ...code, 0x0b]
  return [...uleb(body.length), ...body]
}

function fail(message) {
  throw new Error(message)
}

/** The module's bytes. */
export function buildModule() {
  const names = Object.keys(FUNCTIONS)
  const functionIndex = (name) => {
    const i = names.indexOf(name)
    return i >= 0 ? i : fail(`unknown function ${name}`)
  }
  const signatures = []
  const signatureOf = ({ params, results = [] }) => {
    const encoded = JSON.stringify([
      0x60,
      ...vec(params.map(typeOf)),
      ...vec(results.map((type) => TYPES[type])),
    ])
    if (!signatures.includes(encoded)) signatures.push(encoded)
    return signatures.indexOf(encoded)
  }
  const typeIndices = names.map((name) => signatureOf(FUNCTIONS[name]))
  const bodies = names.map((name) => encodeBody(FUNCTIONS[name], functionIndex))
  const exports = [
    [...vec([...Buffer.from('memory')]), 0x02, 0],
    ...EXPORTS.map((name) => [
      ...vec([...Buffer.from(name)]),
      0x00,
      ...uleb(functionIndex(`$${name}`)),
    ]),
  ]
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
    ...section(1, vec(signatures.map((s) => JSON.parse(s)))),
    ...section(3, vec(typeIndices.map((t) => uleb(t)))),
    ...section(5, vec([[0x00, ...uleb(1)]])), // one memory: 1 page (64 KiB), no maximum
    ...section(7, vec(exports)),
    ...section(10, vec(bodies)),
  ])
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bytes = buildModule()
  new WebAssembly.Module(bytes) // validates
  if (process.argv.includes('--check')) {
    if (!readFileSync(OUT).equals(bytes)) {
      console.error(`${OUT} is not what scripts/build-wasm.mjs emits: run it`)
      process.exit(1)
    }
    console.log(`${OUT} is up to date (${bytes.length} bytes)`)
  } else {
    writeFileSync(OUT, bytes)
    console.log(`wrote ${OUT} (${bytes.length} bytes)`)
  }
}
