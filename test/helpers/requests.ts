// The request most tests send: a JSON body, POSTed with a bearer credential.

/** `RequestInit` POSTing `body` as JSON, with `token` as the bearer credential. */
export function postJson(body: unknown, token: string): RequestInit {
  return {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }
}

/**
 * The values of an NDJSON answer, one a line. Read as bytes: workerd warns on `.text()` of a
 * content type it does not take for text.
 */
export async function ndjsonLines<T = unknown>(response: Response): Promise<T[]> {
  return new TextDecoder()
    .decode(await response.arrayBuffer())
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as T)
}
