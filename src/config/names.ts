/** Origin names: what `POST /v1/sign` bodies and redirect paths use to pick an origin. */
export const ORIGIN_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/
