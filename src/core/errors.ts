/** What the pure cores refuse. The HTTP layer maps each code to a problem answer. */

export type CoreErrorCode =
  /** An `expiresIn` outside SigV4's 1 s to 7 days. */
  | 'invalid_expiry'
  /** An object key S3 cannot hold. */
  | 'invalid_key'
  /** A header that cannot be signed into a URL. */
  | 'invalid_header'
  /** A PEM that is not a usable CloudFront private key. */
  | 'invalid_key_material'

/** The one error the cores throw on purpose; `message` says what is wrong, never a secret. */
export class CoreError extends Error {
  readonly code: CoreErrorCode

  constructor(code: CoreErrorCode, message: string) {
    super(message)
    this.name = 'CoreError'
    this.code = code
  }
}
