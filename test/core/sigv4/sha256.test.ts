import { describe, expect, it } from 'vitest'
import {
  HmacSha256,
  messageAscii,
  messageBytes,
  messageNext,
  messageSha256Hex,
  messageStart,
  SIGN_LANES,
  sha256,
  sha256AsciiHex,
  sha256Text,
} from '../../../src/core/sigv4/sha256'
import { hmacSha256Hex, sha256Hex, toHex } from '../../helpers/hex'

/** Deterministic bytes of a given length, all 256 values. */
function bytesOf(length: number, seed: number): Uint8Array<ArrayBuffer> {
  return Uint8Array.from({ length }, (_, i) => (i * 131 + seed * 29 + (i >> 8)) & 0xff)
}

/** Deterministic printable ASCII of a given length. */
function ascii(length: number, seed: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += String.fromCharCode(32 + ((i * 31 + seed * 17) % 95))
  return out
}

describe('sha256AsciiHex', () => {
  it('matches the FIPS 180-4 examples', () => {
    expect(sha256AsciiHex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
    expect(sha256AsciiHex('')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    )
    expect(sha256AsciiHex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    )
  })

  it('equals Web Crypto for every length across block and padding boundaries', async () => {
    for (let length = 0; length <= 300; length++) {
      const text = ascii(length, length)
      expect(sha256AsciiHex(text), `length ${length}`).toBe(await sha256Hex(text))
    }
  })
})

describe('HmacSha256', () => {
  it('matches RFC 4231 test cases 1 and 2', () => {
    expect(new HmacSha256(new Uint8Array(20).fill(0x0b)).signAsciiHex('Hi There')).toBe(
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    )
    expect(
      new HmacSha256(new TextEncoder().encode('Jefe')).signAsciiHex('what do ya want for nothing?'),
    ).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')
  })

  it('equals Web Crypto for keys of 8 to 64 bytes, with and without prefixes', async () => {
    for (let keyLength = 8; keyLength <= 64; keyLength += 8) {
      const key = Uint8Array.from({ length: keyLength }, (_, i) => (i * 37 + keyLength) & 0xff)
      const mac = new HmacSha256(key)
      for (const [prefixLength, messageLength] of [
        [0, 0],
        [0, 55],
        [0, 56],
        [0, 64],
        [66, 64],
        [64, 1],
        [127, 200],
      ] as const) {
        const prefix = ascii(prefixLength, 1)
        const message = ascii(messageLength, 2)
        const expected = await hmacSha256Hex(key, prefix + message)
        expect(mac.withPrefix(prefix).signAsciiHex(message)).toBe(expected)
        expect(mac.signAsciiHex(prefix + message)).toBe(expected)
      }
    }
  })

  it('hashes a key longer than a block first (RFC 4231 test cases 6 and 7)', () => {
    const key = new Uint8Array(131).fill(0xaa)
    expect(
      new HmacSha256(key).signAsciiHex('Test Using Larger Than Block-Size Key - Hash Key First'),
    ).toBe('60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54')
    expect(
      new HmacSha256(key).signAsciiHex(
        'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
      ),
    ).toBe('9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2')
  })

  it('equals Web Crypto for keys of 1 to 200 bytes, as hex and as bytes', async () => {
    for (let keyLength = 1; keyLength <= 200; keyLength += 13) {
      const key = bytesOf(keyLength, keyLength)
      const message = ascii(keyLength + 7, 3)
      const expected = await hmacSha256Hex(key, message)
      const mac = new HmacSha256(key)
      expect(mac.signAsciiHex(message), `key of ${keyLength} bytes`).toBe(expected)
      expect(toHex(mac.signAscii(message))).toBe(expected)
    }
  })

  it('signs UTF-8 bytes as Web Crypto does, with and without a prefix, across block boundaries', async () => {
    const key = bytesOf(32, 5)
    for (let length = 1; length <= 150; length += 7) {
      const text = `${'é'.repeat(length >> 1)}🎞${ascii(length, 9)}`
      const expected = await hmacSha256Hex(key, `msg_1.${text}`)
      const bytes = new TextEncoder().encode(text)
      expect(toHex(new HmacSha256(key).signBytes(new TextEncoder().encode(`msg_1.${text}`)))).toBe(
        expected,
      )
      expect(toHex(new HmacSha256(key).withPrefix('msg_1.').signBytes(bytes))).toBe(expected)
    }
  })
})

describe('sha256', () => {
  it('equals Web Crypto for bytes of every length across block boundaries', async () => {
    for (let length = 0; length <= 300; length += 7) {
      const data = bytesOf(length, 5)
      const expected = new Uint8Array(await crypto.subtle.digest('SHA-256', data))
      expect(sha256(data), `length ${length}`).toEqual(expected)
    }
  })
})

describe('sha256Text', () => {
  const webCrypto = async (text: string) =>
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))

  it("equals Web Crypto over the text's UTF-8, ASCII or not", async () => {
    const texts = [
      '',
      '\x00\x7f',
      ...Array.from({ length: 44 }, (_, i) => ascii(i * 7, i)),
      'é',
      'Ł',
      'naïve ☃ 😀',
      // A lone surrogate: TextEncoder writes U+FFFD, as the key's hash always did.
      'key-\ud800',
      `${ascii(70, 3)}ü`,
    ]
    for (const text of texts)
      expect(sha256Text(text), JSON.stringify(text)).toEqual(await webCrypto(text))
  })

  it('never takes a character past ASCII for its low byte', () => {
    // U+0141 and U+00C1 end in 0x41, 'A'.
    expect(sha256Text('\u0141')).not.toEqual(sha256Text('A'))
    expect(sha256Text('\u00c1')).not.toEqual(sha256Text('A'))
  })
})

describe('the assembled message', () => {
  it('hashes pieces of text and bytes like one Web Crypto digest, across block boundaries', async () => {
    for (let length = 0; length <= 300; length += 1) {
      // Three pieces: ASCII text, raw bytes (any value, as pre-encoded constants may be), text.
      const head = ascii(length % 7, length)
      const middle = bytesOf(Math.floor((length - head.length) / 2), length)
      const tail = ascii(length - head.length - middle.length, length + 1)
      messageStart()
      messageAscii(head)
      messageBytes(middle)
      messageAscii(tail)
      const whole = new Uint8Array([
        ...new TextEncoder().encode(head),
        ...middle,
        ...new TextEncoder().encode(tail),
      ])
      expect(whole.length).toBe(length)
      expect(messageSha256Hex(), `length ${length}`).toBe(await sha256Hex(whole))
    }
  })

  it('grows for messages far larger than a URL, and stays correct for small ones after', async () => {
    // The first two end exactly at, and one byte past, the module's initial 64 KiB of memory
    // (messages start 2304 bytes in and need 72 bytes of padding room).
    for (const length of [65_536 - 2304 - 72, 65_536 - 2304 - 71, 70_000, 300_001]) {
      const text = ascii(length, 3)
      messageStart()
      messageAscii(text.slice(0, 1000))
      messageAscii(text.slice(1000))
      expect(messageSha256Hex(), `length ${length}`).toBe(await sha256Hex(text))
      const bytes = bytesOf(length, 4)
      messageStart()
      messageBytes(bytes)
      expect(messageSha256Hex(), `bytes ${length}`).toBe(await sha256Hex(bytes))
    }
    expect(sha256AsciiHex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
  })

  it('starts over at messageStart', async () => {
    messageStart()
    messageAscii('discarded')
    messageStart()
    messageAscii('abc')
    expect(messageSha256Hex()).toBe(await sha256Hex('abc'))
  })
})

describe('HmacSha256.signMessageDigestHex', () => {
  /** SigV4's signature step done the long way: HMAC(key, prefix + hex(SHA-256(message))). */
  async function reference(
    key: Uint8Array<ArrayBuffer>,
    prefix: string,
    message: string,
  ): Promise<string> {
    return hmacSha256Hex(key, prefix + (await sha256Hex(message)))
  }

  function sign(mac: HmacSha256, message: string): string {
    messageStart()
    messageAscii(message)
    return mac.signMessageDigestHex()
  }

  it('equals HMAC of the hex digest for prefixes and messages across block boundaries', async () => {
    const key = Uint8Array.from({ length: 32 }, (_, i) => (i * 53 + 1) & 0xff)
    const mac = new HmacSha256(key)
    // The prefix's partial last block (0 to 63 bytes) shares a block with the 64 hex characters.
    for (const prefixLength of [0, 1, 9, 55, 63, 64, 65, 73, 119, 127, 128, 200]) {
      const prefix = ascii(prefixLength, prefixLength)
      const withPrefix = mac.withPrefix(prefix)
      for (const messageLength of [0, 1, 55, 56, 63, 64, 119, 120, 250, 1000]) {
        const message = ascii(messageLength, messageLength + 5)
        expect(sign(withPrefix, message), `prefix ${prefixLength}, message ${messageLength}`).toBe(
          await reference(key, prefix, message),
        )
      }
    }
  })

  it('keeps keys apart when batches with different keys and prefixes interleave', async () => {
    const keyA = new Uint8Array(32).fill(0xa5)
    const keyB = Uint8Array.from({ length: 20 }, (_, i) => i)
    const a = new HmacSha256(keyA).withPrefix('AWS4-HMAC-SHA256\n20261123T120000Z\nscope-a\n')
    const b = new HmacSha256(keyB).withPrefix('x'.repeat(70))
    const a2 = new HmacSha256(keyA).withPrefix('short\n')
    const expected = {
      a: await reference(keyA, 'AWS4-HMAC-SHA256\n20261123T120000Z\nscope-a\n', 'm'),
      b: await reference(keyB, 'x'.repeat(70), 'm'),
      a2: await reference(keyA, 'short\n', 'm'),
    }
    for (let round = 0; round < 3; round++) {
      expect(sign(a, 'm')).toBe(expected.a)
      expect(sign(b, 'm')).toBe(expected.b)
      expect(sign(a2, 'm')).toBe(expected.a2)
      expect(sign(a, 'm')).toBe(expected.a)
      // Creating a key, or signing a plain message, between two signatures changes neither.
      const c = new HmacSha256(new Uint8Array(64).fill(round))
      expect(c.signAsciiHex('plain')).toBe(
        await hmacSha256Hex(new Uint8Array(64).fill(round), 'plain'),
      )
      expect(sign(a, 'm')).toBe(expected.a)
    }
  })

  it('signs correctly after the message memory grew', async () => {
    const key = new Uint8Array(32).fill(9)
    const mac = new HmacSha256(key).withPrefix('p\n')
    const small = await reference(key, 'p\n', 'small')
    expect(sign(mac, 'small')).toBe(small)
    const large = ascii(200_000, 8)
    expect(sign(mac, large)).toBe(await reference(key, 'p\n', large))
    expect(sign(mac, 'small')).toBe(small)
  })
})

describe('HmacSha256.signMessagesDigestHex (four SIMD lanes)', () => {
  const key = Uint8Array.from({ length: 32 }, (_, i) => (i * 71 + 3) & 0xff)
  const prefix = 'AWS4-HMAC-SHA256\n20261123T120000Z\n20261123/eu-west-1/s3/aws4_request\n'
  const mac = new HmacSha256(key).withPrefix(prefix)

  async function reference(message: string): Promise<string> {
    return hmacSha256Hex(key, prefix + (await sha256Hex(message)))
  }

  function signOne(message: string): string {
    messageStart()
    messageAscii(message)
    return mac.signMessageDigestHex()
  }

  /** Signs up to SIGN_LANES messages as one group; longer lists in consecutive groups. */
  function signGroups(messages: readonly string[]): string[] {
    const out: string[] = []
    for (let from = 0; from < messages.length; from += SIGN_LANES) {
      messageStart()
      messages.slice(from, from + SIGN_LANES).forEach((message, i) => {
        if (i > 0) messageNext()
        // In two pieces, text and bytes, as the presigner assembles them.
        messageAscii(message.slice(0, 5))
        messageBytes(Uint8Array.from(message.slice(5), (c) => c.charCodeAt(0)))
      })
      out.push(...mac.signMessagesDigestHex())
    }
    return out
  }

  it('equals the single-message path and Web Crypto for batches of 1 to 9 of different lengths', async () => {
    for (let size = 1; size <= 9; size++) {
      // Lengths spread over 0 to 5 blocks so the lanes finish after different block counts.
      const messages = Array.from({ length: size }, (_, i) =>
        ascii((i * 83 + size * 29) % 330, i + size),
      )
      const signatures = signGroups(messages)
      expect(signatures).toHaveLength(size)
      for (let i = 0; i < size; i++) {
        const expected = await reference(messages[i]!)
        expect(signatures[i], `batch ${size}, item ${i}`).toBe(expected)
        expect(signOne(messages[i]!)).toBe(expected)
      }
      // A message's signature does not depend on its lane or neighbours.
      expect(signGroups([...messages].reverse())).toEqual([...signatures].reverse())
    }
  })

  it('pads each lane right at block boundaries (55, 56, 63, 64, 119, 120 bytes and more)', async () => {
    const lengths = [0, 1, 54, 55, 56, 57, 63, 64, 65, 118, 119, 120, 127, 128, 129, 183, 184, 200]
    for (let shift = 0; shift < SIGN_LANES; shift++) {
      // Each length in every lane, beside lengths that need more and fewer blocks.
      const rotated = [...lengths.slice(shift), ...lengths.slice(0, shift)]
      const messages = rotated.map((length) => ascii(length, length * 3 + shift))
      const signatures = signGroups(messages)
      for (let i = 0; i < messages.length; i++) {
        expect(signatures[i], `length ${rotated[i]}, lane ${i % SIGN_LANES}`).toBe(
          await reference(messages[i]!),
        )
      }
    }
  })

  it('signs with prefixes whose tails put the hex digest across a block boundary', async () => {
    for (const prefixLength of [0, 1, 54, 55, 63, 64, 70, 127]) {
      const prefixed = new HmacSha256(key).withPrefix(ascii(prefixLength, 9))
      const messages = ['a', ascii(100, 1), ascii(64, 2)]
      messageStart()
      messages.forEach((message, i) => {
        if (i > 0) messageNext()
        messageAscii(message)
      })
      const signatures = prefixed.signMessagesDigestHex()
      for (let i = 0; i < messages.length; i++) {
        expect(signatures[i], `prefix ${prefixLength}, item ${i}`).toBe(
          await hmacSha256Hex(key, ascii(prefixLength, 9) + (await sha256Hex(messages[i]!))),
        )
      }
    }
  })

  it('switches keys between groups and single signatures', async () => {
    const other = new HmacSha256(new Uint8Array(20).fill(0x0b)).withPrefix('other\n')
    const messages = ['one', 'two', 'three']
    const expected = await Promise.all(messages.map((message) => reference(message)))
    for (let round = 0; round < 2; round++) {
      expect(signGroups(messages)).toEqual(expected)
      messageStart()
      messageAscii('one')
      messageNext()
      messageAscii('two')
      expect(other.signMessagesDigestHex()).toEqual([
        await hmacSha256Hex(new Uint8Array(20).fill(0x0b), 'other\n' + (await sha256Hex('one'))),
        await hmacSha256Hex(new Uint8Array(20).fill(0x0b), 'other\n' + (await sha256Hex('two'))),
      ])
      expect(signOne('three')).toBe(expected[2])
    }
  })

  it('grows memory for large messages in any lane', async () => {
    const messages = ['small', ascii(70_000, 5), 'x', ascii(140_000, 6)]
    expect(signGroups(messages)).toEqual(
      await Promise.all(messages.map((message) => reference(message))),
    )
    expect(signGroups(['after', 'growth'])).toEqual([
      await reference('after'),
      await reference('growth'),
    ])
  })

  it('writes out only the words asked for: a prefix of the whole tag, in one lane or four', async () => {
    for (const size of [1, 2, 3, 4]) {
      const messages = Array.from({ length: size }, (_, i) => ascii(40 + 30 * i, i + 7))
      for (const wordCount of [1, 4, 7, 8]) {
        messageStart()
        messages.forEach((message, i) => {
          if (i > 0) messageNext()
          messageAscii(message)
        })
        const tags = mac.signMessagesDigestHex(wordCount)
        const whole = await Promise.all(messages.map((message) => reference(message)))
        expect(tags, `${size} messages, ${wordCount} words`).toEqual(
          whole.map((tag) => tag.slice(0, 8 * wordCount)),
        )
      }
    }
  })

  it('refuses more than SIGN_LANES messages in a group', () => {
    messageStart()
    for (let i = 1; i < SIGN_LANES; i++) messageNext()
    expect(() => messageNext()).toThrow(RangeError)
  })
})
