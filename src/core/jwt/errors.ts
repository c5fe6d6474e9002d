/** Why a JWS or JWT was refused: one code per refusal jose's own error classes tell apart. */
export type JwtErrorCode =
  /** Not a compact JWS, a segment or header that does not parse, a payload that is no object. */
  | 'malformed'
  /** An extension in `crit` that is not understood (RFC 7515 §4.1.11). */
  | 'unsupported'
  /** An `alg` outside the caller's list (`none` is never in it). */
  | 'alg_not_allowed'
  /** No key of the set fits the header: a `kid` the set lacks, or none of the `alg`'s type. */
  | 'no_matching_key'
  /** More than one key of the set fits: refused rather than tried in turn. */
  | 'multiple_matching_keys'
  /** The key set is not a JWK set. */
  | 'invalid_key_set'
  /** A key that does not import, or is not of the `alg`'s kind (type, hash, curve, RSA size). */
  | 'invalid_key'
  | 'signature_invalid'
  /** A claim that is missing, of the wrong type or value; `claim` names it. */
  | 'claim_invalid'
  /** `exp` is past, beyond the clock tolerance. */
  | 'expired'

/** The one error the JWT core throws on purpose; `message` never holds a token or a key. */
export class JwtError extends Error {
  readonly code: JwtErrorCode
  /** For `claim_invalid` and `expired`: the claim at fault. */
  readonly claim: string | undefined

  constructor(code: JwtErrorCode, message: string, claim?: string) {
    super(message)
    this.name = 'JwtError'
    this.code = code
    this.claim = claim
  }
}
