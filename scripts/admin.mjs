// `npm run admin`: the admin API (/admin/v1) from a terminal, for operators.
//
//   WAYBILL_ADMIN_TOKEN=… npm run admin -- keys create --label "the gallery" \
//     --grant '{"origin":"photos","prefix":"public/","actions":["read"]}'
//
// Each command is one request; the answer is printed as JSON (a problem's detail and fields on a
// refusal, with exit code 1). `token` works offline: it makes an admin token and its
// WAYBILL_ADMIN_TOKENS entry. The token is read from WAYBILL_ADMIN_TOKEN only, never an argument,
// so it stays out of shell history and process lists.

import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hashedEntry, newSecret } from './secrets.mjs'

const USAGE = `usage: npm run admin -- [--url <waybill>] <command>

  keys create [--id <id>] [--label <text>] [--prefix <p>] [--expires <time>] [--grant <json>]…
  keys list [--limit <n>] [--cursor <c>]
  keys show <id>
  keys rotate <id> [--overlap <seconds>]
  keys revoke <id>
  grants create <grant json>            the same JSON as a WAYBILL_GRANTS entry, with "to"
  grants list [--to <subject>] [--limit <n>] [--cursor <c>]
  grants delete <id>
  revocations create --link <id> | --key <id> | --issued-before <time> [--origin <o>] [--principal <p>]
  revocations list [--limit <n>] [--cursor <c>]
  quotas create --to <subject> --origin <o> [--max-objects <n>] [--max-bytes <n>] --window <seconds>
  quotas list [--limit <n>] [--cursor <c>]
  quotas delete <id>
  usage --key <id> | --principal <p> [--from <day>] [--to <day>]
  token <id>                            a new admin token and its WAYBILL_ADMIN_TOKENS entry (offline)

The admin token comes from WAYBILL_ADMIN_TOKEN; the admin plane's URL from --url or WAYBILL_ADMIN_URL
(default http://127.0.0.1:8788, npm start's).`

const OPTIONS = {
  url: { type: 'string' },
  id: { type: 'string' },
  label: { type: 'string' },
  prefix: { type: 'string' },
  expires: { type: 'string' },
  grant: { type: 'string', multiple: true },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  overlap: { type: 'string' },
  to: { type: 'string' },
  link: { type: 'string' },
  key: { type: 'string' },
  'issued-before': { type: 'string' },
  origin: { type: 'string' },
  principal: { type: 'string' },
  'max-objects': { type: 'string' },
  'max-bytes': { type: 'string' },
  window: { type: 'string' },
  from: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
}

function json(text, what) {
  try {
    return JSON.parse(text)
  } catch {
    throw new Error(`${what} is not JSON: ${text}`)
  }
}

function number(text, what) {
  if (text === undefined) return undefined
  if (!/^\d+$/.test(text)) throw new Error(`${what} must be a whole number, not ${text}`)
  return Number(text)
}

/** `?name=value&…` of the options that are set. */
function query(pairs) {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(pairs))
    if (value !== undefined) params.set(name, value)
  return params.size === 0 ? '' : `?${params}`
}

/**
 * The request a command makes, `{ method, path, body?, url? }` (the path under /admin/v1), or
 * `{ token: id }` for the offline command; an Error saying what is wrong otherwise.
 *
 * @example
 * adminRequest(['keys', 'rotate', 'web', '--overlap', '3600'])
 * // { url: undefined, method: 'POST', path: '/keys/web/rotate', body: { overlapS: 3600 } }
 */
export function adminRequest(argv) {
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    throw new Error(`${error.message}\n${USAGE}`)
  }
  const { values: o, positionals } = parsed
  const [resource, verb, arg] = positionals
  return { url: o.url, ...command(o, resource, verb, arg) }
}

function command(o, resource, verb, arg) {
  const need = (value, what) => {
    if (value === undefined) throw new Error(`${resource} ${verb ?? ''} needs ${what}\n${USAGE}`)
    return value
  }
  // A path segment: encoded, so an id is never read as more of the path.
  const segment = (value, what) => encodeURIComponent(need(value, what))
  const page = () => query({ limit: o.limit, cursor: o.cursor })
  switch (`${resource} ${verb}`) {
    case 'keys create':
      return {
        method: 'POST',
        path: '/keys',
        body: {
          ...(o.id && { id: o.id }),
          ...(o.label && { label: o.label }),
          ...(o.prefix && { prefix: o.prefix }),
          ...(o.expires && { expiresAt: o.expires }),
          ...(o.grant && { grants: o.grant.map((g) => json(g, '--grant')) }),
        },
      }
    case 'keys list':
      return { method: 'GET', path: `/keys${page()}` }
    case 'keys show':
      return { method: 'GET', path: `/keys/${segment(arg, 'a key id')}` }
    case 'keys rotate':
      return {
        method: 'POST',
        path: `/keys/${segment(arg, 'a key id')}/rotate`,
        body: o.overlap === undefined ? {} : { overlapS: number(o.overlap, '--overlap') },
      }
    case 'keys revoke':
      return {
        method: 'POST',
        path: '/revocations',
        body: { kind: 'key', key: need(arg, 'a key id') },
      }
    case 'grants create':
      return { method: 'POST', path: '/grants', body: json(need(arg, 'a grant'), 'the grant') }
    case 'grants list':
      return {
        method: 'GET',
        path: `/grants${query({ to: o.to, limit: o.limit, cursor: o.cursor })}`,
      }
    case 'grants delete':
      return { method: 'DELETE', path: `/grants/${segment(arg, 'a grant id')}` }
    case 'revocations create': {
      if (o.link !== undefined)
        return { method: 'POST', path: '/revocations', body: { kind: 'link', link: o.link } }
      if (o.key !== undefined)
        return { method: 'POST', path: '/revocations', body: { kind: 'key', key: o.key } }
      return {
        method: 'POST',
        path: '/revocations',
        body: {
          kind: 'links',
          issuedBefore: need(o['issued-before'], '--link, --key or --issued-before'),
          ...(o.origin && { origin: o.origin }),
          ...(o.principal && { principal: o.principal }),
        },
      }
    }
    case 'revocations list':
      return { method: 'GET', path: `/revocations${page()}` }
    case 'quotas create':
      return {
        method: 'POST',
        path: '/quotas',
        body: {
          to: need(o.to, '--to'),
          origin: need(o.origin, '--origin'),
          maxObjects: number(o['max-objects'], '--max-objects'),
          maxBytes: number(o['max-bytes'], '--max-bytes'),
          windowS: number(need(o.window, '--window'), '--window'),
        },
      }
    case 'quotas list':
      return { method: 'GET', path: `/quotas${page()}` }
    case 'quotas delete':
      return { method: 'DELETE', path: `/quotas/${segment(arg, 'a quota id')}` }
    default:
      if (resource === 'usage') {
        // The API names a caller only: a key's is `apiKey:<id>`.
        if ((o.key === undefined) === (o.principal === undefined)) {
          throw new Error(`usage needs --key or --principal, one of them\n${USAGE}`)
        }
        const principal = o.principal ?? `apiKey:${o.key}`
        return { method: 'GET', path: `/usage${query({ principal, from: o.from, to: o.to })}` }
      }
      if (resource === 'token') {
        if (verb === undefined || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(verb)) {
          throw new Error(`token needs an id (1-64 of A-Z, a-z, 0-9, ".", "_", "-")\n${USAGE}`)
        }
        return { token: verb }
      }
      throw new Error(USAGE)
  }
}

/** A new admin token and its WAYBILL_ADMIN_TOKENS entry (only the SHA-256 is configured). */
export function adminToken(id) {
  const token = newSecret('wba_')
  return { token, entry: hashedEntry(id, token) }
}

/**
 * Runs a command: prints the answer and answers the exit code. `fetch`, `env` and `print` are
 * the process's unless a test gives its own.
 */
export async function runAdmin(
  argv,
  { fetch: send = fetch, env = process.env, print = console.log, fail = console.error } = {},
) {
  let request
  try {
    request = adminRequest(argv)
  } catch (error) {
    fail(error.message)
    return 2
  }
  if (request.token !== undefined) {
    const { token, entry } = adminToken(request.token)
    print(`Admin token (give it to the operator; it is not stored anywhere): ${token}`)
    print(`WAYBILL_ADMIN_TOKENS entry: ${JSON.stringify(entry)}`)
    print(
      'Deployed: put the JSON array of entries in the secret (wrangler secret put WAYBILL_ADMIN_TOKENS).',
    )
    return 0
  }
  const token = env.WAYBILL_ADMIN_TOKEN
  if (!token) {
    fail('Set WAYBILL_ADMIN_TOKEN to an admin token (npm run admin -- token <id> makes one).')
    return 2
  }
  const base = request.url ?? env.WAYBILL_ADMIN_URL ?? 'http://127.0.0.1:8788'
  const response = await send(`${base.replace(/\/$/, '')}/admin/v1${request.path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  })
  const text = await response.text()
  if (response.ok) {
    print(text === '' ? `${response.status}` : JSON.stringify(JSON.parse(text), null, 2))
    return 0
  }
  let problem
  try {
    problem = JSON.parse(text)
  } catch {
    problem = { detail: text }
  }
  fail(`${response.status}: ${problem.detail ?? text}`)
  for (const { path, message } of problem.errors ?? []) fail(`  ${path}: ${message}`)
  return 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await runAdmin(process.argv.slice(2))
}
