/**
 * The Worker's bindings. Only `src/index.ts` and `src/config/` read them. Credentials are looked up
 * by the name an origin gives (`"credentials": "PHOTOS"` reads `PHOTOS_ACCESS_KEY_ID`, …), so the
 * type is open.
 */
export interface Env {
  /** JSON object (wrangler var) or JSON string: origin name → origin definition. */
  WAYBILL_ORIGINS?: unknown
  /** JSON string (a secret): `[{ "id", "sha256", "origins" }]`. */
  WAYBILL_API_KEYS?: unknown
  /** Most items one `POST /v1/sign` may carry (default 10000). */
  WAYBILL_MAX_BATCH?: unknown
  /** `expiresIn` used when a request gives none (default 900). */
  WAYBILL_DEFAULT_EXPIRES_S?: unknown
  [name: string]: unknown
}
