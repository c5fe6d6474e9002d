/**
 * The Worker's bindings. Only `src/index.ts`, `src/config/` and the middleware that needs a binding
 * read them. Credentials are looked up by the name an origin gives (`"credentials": "PHOTOS"` reads
 * `PHOTOS_ACCESS_KEY_ID`, …), so the type is open.
 *
 * Variables are `unknown`, not the types `wrangler types` generates from wrangler.jsonc
 * (`Cloudflare.Env`, worker-configuration.d.ts): a var may hold any JSON and a secret or a test's
 * binding is JSON text, and the config module checks each (test/config/ sends every wrong kind).
 * test/config/env.test.ts holds the generated names to this list instead.
 */
export interface Env {
  /** JSON object (wrangler var) or JSON string: origin name → origin definition. */
  WAYBILL_ORIGINS?: unknown
  /** JSON (a secret): `[{ "id", "sha256", "label"? }]`. */
  WAYBILL_API_KEYS?: unknown
  /** JSON: `{ "jwt"?, "access"? }`, the token-based authentication methods. */
  WAYBILL_AUTH?: unknown
  /** Secret: the HS256 shared secret when `WAYBILL_AUTH.jwt.hs256` is true. */
  WAYBILL_JWT_HS256_SECRET?: unknown
  /** JSON: `[{ "to", "origin", "prefix", "actions", … }]`. */
  WAYBILL_GRANTS?: unknown
  /** JSON: `{ "origins", "credentials"?, "maxAgeS"? }`. */
  WAYBILL_CORS?: unknown
  /** Most items one `POST /v1/sign` may carry (default 10000). */
  WAYBILL_MAX_BATCH?: unknown
  /** `expiresIn` used when a request gives none (default 900). */
  WAYBILL_DEFAULT_EXPIRES_S?: unknown
  /** Most RSA signatures (canned CloudFront URLs) one request may cost (default 250). */
  WAYBILL_MAX_RSA_SIGNATURES?: unknown
  /** Secret, JSON: `[{ "id", "secret" }]`: what seals links, upload handles, receipts, cursors. */
  WAYBILL_TOKEN_SECRETS?: unknown
  /** WAYBILL_TOKEN_SECRETS's former name: an error when set (CHANGELOG.md). */
  WAYBILL_LINK_SECRETS?: unknown
  /** JSON: `[{ "issuedBefore", "origin"?, "principal"? }]`, links to refuse. */
  WAYBILL_LINK_REVOCATIONS?: unknown
  /** https URL (http only for 127.0.0.1, localhost, [::1]): upload.completed events are POSTed there. */
  WAYBILL_WEBHOOK_URL?: unknown
  /** Secret: `whsec_<base64 of 24+ bytes>`, signs the webhook (Standard Webhooks). Required with the URL. */
  WAYBILL_WEBHOOK_SECRET?: unknown
  /** Optional Queue producer binding: upload.completed events are sent there. */
  WAYBILL_UPLOAD_QUEUE?: unknown
  /** `all` (default): a log line per request; `errors`: only for answers of 400 and above. */
  WAYBILL_REQUEST_LOG?: unknown
  /** Optional D1 binding: the control plane (keys, grants, revocations, quotas, usage). */
  WAYBILL_DB?: unknown
  /** Optional Durable Object namespace binding (class QuotaCounter): upload quota counters. */
  WAYBILL_QUOTAS?: unknown
  /**
   * Optional Durable Object namespace binding (class UploadParts): the parts of R2 origins'
   * multipart uploads. An R2 origin names another with its `parts`.
   */
  WAYBILL_UPLOAD_PARTS?: unknown
  /** Optional Durable Object namespace binding (class LinkUses): the uses of links with maxUses. */
  WAYBILL_LINK_USES?: unknown
  /** Optional Analytics Engine dataset binding: audit events. */
  WAYBILL_AUDIT?: unknown
  /** Optional Queue producer binding: audit events. */
  WAYBILL_AUDIT_QUEUE?: unknown
  /** The static assets binding (wrangler.jsonc `assets.binding`): the API document and page. */
  ASSETS?: Fetcher
  /** Optional Workers Rate Limiting binding, keyed per principal. */
  WAYBILL_RATE_LIMITER?: RateLimit
  [name: string]: unknown
}
