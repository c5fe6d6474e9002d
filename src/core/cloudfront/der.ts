// Just enough DER (ITU-T X.690) to read and wrap private keys: tag-length-value reading and writing.

export interface Tlv {
  tag: number
  /** Offset of the value's first byte. */
  start: number
  /** Offset just past the value. */
  end: number
}

/** Reads one TLV at `offset`, or throws if it does not fit in `bytes`. */
export function readTlv(bytes: Uint8Array, offset: number, limit = bytes.length): Tlv {
  if (offset + 2 > limit) throw new Error('truncated DER')
  const tag = bytes[offset]!
  let length = bytes[offset + 1]!
  let start = offset + 2
  if (length & 0x80) {
    const count = length & 0x7f
    if (count === 0 || count > 4 || start + count > limit) throw new Error('bad DER length')
    length = 0
    for (let i = 0; i < count; i++) length = length * 256 + bytes[start + i]!
    start += count
  }
  const end = start + length
  if (end > limit) throw new Error('truncated DER')
  return { tag, start, end }
}

/** The TLVs directly inside a constructed value (a SEQUENCE's elements). */
export function children(bytes: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = []
  for (let offset = parent.start; offset < parent.end;) {
    const tlv = readTlv(bytes, offset, parent.end)
    out.push(tlv)
    offset = tlv.end
  }
  return out
}

function lengthBytes(length: number): number[] {
  if (length < 0x80) return [length]
  const out: number[] = []
  for (let n = length; n > 0; n = Math.floor(n / 256)) out.unshift(n & 0xff)
  return [0x80 | out.length, ...out]
}

/** Encodes one TLV. */
export function tlv(tag: number, ...values: Uint8Array[]): Uint8Array {
  const length = values.reduce((sum, v) => sum + v.length, 0)
  const head = [tag, ...lengthBytes(length)]
  const out = new Uint8Array(head.length + length)
  out.set(head)
  let offset = head.length
  for (const value of values) {
    out.set(value, offset)
    offset += value.length
  }
  return out
}

export const SEQUENCE = 0x30
export const INTEGER = 0x02
export const OCTET_STRING = 0x04
export const OID = 0x06
export const NULL = 0x05

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i])
}
