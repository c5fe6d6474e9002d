// @ts-check
// `npm run admin`: the admin API (/admin/v1, on the admin plane) from a terminal, for operators.
//
//   WAYBILL_ADMIN_TOKEN=… npm run admin -- keys create --label "the gallery" --expires 30d \
//     --grant '{"origin":"photos","prefix":"public/","actions":["read"]}'
//
// Each command is one request, typed from the admin plane's document (src/admin/openapi.d.ts,
// generated from docs/admin-openapi.json): a body the API would refuse for its shape does not
// type-check here. The answer is a table on a terminal and JSON otherwise (or with --json); a
// refusal prints its problem once, with the fields the detail does not already name, and exits 1.
// `token` works offline: it makes an admin token and its WAYBILL_ADMIN_TOKENS entry. The token is
// read from WAYBILL_ADMIN_TOKEN only, never an argument, so it stays out of shell history and
// process lists.

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hashedEntry, newSecret } from './secrets.mjs'

/** @typedef {import('../src/admin/openapi').operations} Operations */
/**
 * The JSON body operation `Op` takes, as the admin document describes it.
 * @template {keyof Operations} Op
 * @typedef {Operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never} BodyOf
 */
/**
 * @typedef {{ operation: keyof Operations, method: string, path: string, body?: unknown }} ApiCall
 * @typedef {ApiCall & { url: string | undefined, json: boolean }} AdminRequest
 */

const USAGE = `usage: npm run admin -- [--url <admin plane>] [--json] <command>

  keys create [--id <id>] [--label <text>] [--prefix <p>] [--expires <when>] [--grant <json>]…
  keys list [--limit <n>] [--cursor <c>]
  keys show <id>                        with every grant that reaches it
  keys update <id> [--label <text>|--no-label] [--expires <when>|never]
  keys rotate <id> [--overlap <duration>]
  keys revoke <id>
  grants create <grant json> [--allow-unknown-key]   a WAYBILL_GRANTS entry, with "to"
  grants list [--to <subject>] [--limit <n>] [--cursor <c>]
  grants effective --caller <apiKey:id|jwt:sub> [--role <r>]… [--email <e>]
  grants delete <id>
  revocations create --link <id> | --key <id> | --issued-before <when> [--origin <o>] [--principal <p>]
  revocations list [--limit <n>] [--cursor <c>]
  revocations delete <id>               undo it
  quotas create --to <subject> --origin <o> [--max-objects <n>] [--max-bytes <n>] --window <duration>
  quotas list [--limit <n>] [--cursor <c>]
  quotas show <id> [--caller <apiKey:id>]   with its use, room left and reset time
  quotas update <id> [--max-objects <n|none>] [--max-bytes <n|none>]   keeps its counter
  quotas delete <id>
  usage [--key <id> | --principal <p>] [--from <day>] [--to <day>]   every caller when neither
  usage top [--by minted|bytes|completed|refused] [--limit <n>] [--from <day>] [--to <day>]
  audit [--principal <p>] [--key <id>] [--action <a>] [--outcome ok|refused] [--from <when>] [--to <when>] [--limit <n>] [--cursor <c>]
  explain (--key <id> | --claims <json> [--via jwt|access]) --action <a> --origin <o> --object <key>
          [--content-type <t>] [--content-length <n>] [--overwrite] [--expires-in <duration>]
  export [--secrets]                    the configuration as one document (--secrets: with hashes)
  import <file>                         a document of export, added where not held
  token <id>                            a new admin token and its WAYBILL_ADMIN_TOKENS entry (offline)

<when> is a time ("2026-12-01T00:00:00Z") or a duration from now ("30d"); a <duration> is seconds
or a number with s, m, h, d or w ("90m", "1d"). The admin token comes from WAYBILL_ADMIN_TOKEN; the
admin plane's URL from --url or WAYBILL_ADMIN_URL (default http://127.0.0.1:8788, npm start's).`

/** @type {import('node:util').ParseArgsOptionsConfig} */
const OPTIONS = {
  url: { type: 'string' },
  json: { type: 'boolean' },
  id: { type: 'string' },
  label: { type: 'string' },
  'no-label': { type: 'boolean' },
  prefix: { type: 'string' },
  expires: { type: 'string' },
  grant: { type: 'string', multiple: true },
  'allow-unknown-key': { type: 'boolean' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  overlap: { type: 'string' },
  to: { type: 'string' },
  caller: { type: 'string' },
  role: { type: 'string', multiple: true },
  email: { type: 'string' },
  link: { type: 'string' },
  key: { type: 'string' },
  'issued-before': { type: 'string' },
  origin: { type: 'string' },
  principal: { type: 'string' },
  'max-objects': { type: 'string' },
  'max-bytes': { type: 'string' },
  window: { type: 'string' },
  from: { type: 'string' },
  by: { type: 'string' },
  action: { type: 'string' },
  outcome: { type: 'string' },
  claims: { type: 'string' },
  via: { type: 'string' },
  object: { type: 'string' },
  'content-type': { type: 'string' },
  'content-length': { type: 'string' },
  overwrite: { type: 'boolean' },
  'expires-in': { type: 'string' },
  secrets: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
}

/** A refusal of the command line itself: printed with the usage, exit code 2. */
class UsageError extends Error {}

/**
 * @param {string} text
 * @param {string} what
 */
function json(text, what) {
  try {
    return JSON.parse(text)
  } catch {
    throw new UsageError(`${what} is not JSON: ${text}`)
  }
}

/**
 * @param {string | undefined} text
 * @param {string} what
 */
function number(text, what) {
  if (text === undefined) return undefined
  if (!/^\d+$/.test(text)) throw new UsageError(`${what} must be a whole number, not ${text}`)
  return Number(text)
}

const UNIT_S = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }

/**
 * Seconds: a whole number, or one with a unit (s, m, h, d, w).
 *
 * @example
 * seconds('30d', '--expires') // 2592000
 * @param {string | undefined} text
 * @param {string} what
 */
export function seconds(text, what) {
  if (text === undefined) return undefined
  const match = /^(\d+)([smhdw]?)$/.exec(text)
  if (match === null) {
    throw new UsageError(
      `${what} must be a duration such as 3600, 90m, 12h, 30d or 2w, not ${text}`,
    )
  }
  return Number(match[1]) * UNIT_S[/** @type {keyof typeof UNIT_S} */ (match[2] || 's')]
}

/**
 * A time: as given when it is one ("2026-12-01T00:00:00Z"), or a duration from `now` ("30d").
 *
 * @example
 * when('30d', '--expires', new Date('2026-11-01T00:00:00Z')) // '2026-12-01T00:00:00.000Z'
 * @param {string} text
 * @param {string} what
 * @param {Date} now
 */
export function when(text, what, now) {
  if (/^\d+[smhdw]?$/.test(text)) {
    return new Date(
      now.getTime() + /** @type {number} */ (seconds(text, what)) * 1000,
    ).toISOString()
  }
  if (Number.isNaN(Date.parse(text))) {
    throw new UsageError(
      `${what} must be a time (2026-12-01T00:00:00Z) or a duration (30d), not ${text}`,
    )
  }
  return text
}

/**
 * `?name=value&…` of the options that are set (an array: the name repeated).
 * @param {Record<string, string | string[] | undefined>} pairs
 */
function query(pairs) {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(pairs)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      params.append(name, one)
    }
  }
  return params.size === 0 ? '' : `?${params}`
}

/**
 * One call of the API: the body is the one the document gives the operation.
 * @template {keyof Operations} Op
 * @param {Op} operation
 * @param {string} method
 * @param {string} path
 * @param {BodyOf<Op>} [body]
 * @returns {ApiCall}
 */
function call(operation, method, path, body) {
  return body === undefined ? { operation, method, path } : { operation, method, path, body }
}

/**
 * The request a command makes, `{ operation, method, path, body?, url, json }` (the path under
 * /admin/v1), or `{ token: id }` for the offline command; a UsageError saying what is wrong
 * otherwise.
 *
 * @example
 * adminRequest(['keys', 'rotate', 'web', '--overlap', '1h'])
 * // { url: undefined, json: false, operation: 'adminRotateKey', method: 'POST', path: '/keys/web/rotate', body: { overlapS: 3600 } }
 * @param {string[]} argv
 * @param {Date} [now]
 * @returns {AdminRequest | { token: string }}
 */
export function adminRequest(argv, now = new Date()) {
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError(/** @type {Error} */ (error).message)
  }
  const { values, positionals } = parsed
  const o =
    /** @type {Record<string, string | undefined> & { grant?: string[], role?: string[] }} */ (
      /** @type {unknown} */ (values)
    )
  const [resource, verb, arg] = positionals
  if (values.help === true || resource === undefined) throw new UsageError('')
  if (resource === 'token') {
    if (verb === undefined || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(verb)) {
      throw new UsageError('token needs an id (1-64 of A-Z, a-z, 0-9, ".", "_", "-")')
    }
    return { token: verb }
  }
  const flags = /** @type {Record<string, boolean | undefined>} */ (/** @type {unknown} */ (values))
  return { url: o.url, json: flags.json === true, ...command(o, flags, resource, verb, arg, now) }
}

/**
 * @param {Record<string, string | undefined> & { grant?: string[], role?: string[] }} o
 * @param {Record<string, boolean | undefined>} flags
 * @param {string} resource
 * @param {string | undefined} verb
 * @param {string | undefined} arg
 * @param {Date} now
 * @returns {ApiCall}
 */
function command(o, flags, resource, verb, arg, now) {
  /**
   * @template T
   * @param {T | undefined} value
   * @param {string} what
   * @returns {T}
   */
  const need = (value, what) => {
    if (value === undefined) throw new UsageError(`${resource} ${verb ?? ''} needs ${what}`)
    return value
  }
  // A path segment: encoded, so an id is never read as more of the path.
  /** @param {string | undefined} value @param {string} what */
  const segment = (value, what) => encodeURIComponent(need(value, what))
  const page = () => query({ limit: o.limit, cursor: o.cursor })
  /** A limit to change: a number, or `none` (null) for no such limit. @param {string} name */
  const limit = (name) => (o[name] === 'none' ? null : number(o[name], `--${name}`))
  if (resource === 'import') {
    const file = need(verb, 'a file (a document of export)')
    let text
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${/** @type {Error} */ (error).message}`)
    }
    return call('adminImport', 'POST', '/import', json(text, file))
  }
  switch (verb === undefined ? resource : `${resource} ${verb}`) {
    case 'keys create':
      return call('adminCreateKey', 'POST', '/keys', {
        ...(o.id && { id: o.id }),
        ...(o.label && { label: o.label }),
        ...(o.prefix && { prefix: o.prefix }),
        ...(o.expires && { expiresAt: when(o.expires, '--expires', now) }),
        ...(o.grant && { grants: o.grant.map((g) => json(g, '--grant')) }),
      })
    case 'keys list':
      return call('adminListKeys', 'GET', `/keys${page()}`)
    case 'keys show':
      return call('adminGetKey', 'GET', `/keys/${segment(arg, 'a key id')}`)
    case 'keys update': {
      const expires = o.expires === 'never' ? null : o.expires && when(o.expires, '--expires', now)
      const body = {
        ...(flags['no-label'] ? { label: null } : o.label === undefined ? {} : { label: o.label }),
        ...(expires === undefined ? {} : { expiresAt: expires }),
      }
      if (Object.keys(body).length === 0) {
        throw new UsageError('keys update needs --label, --no-label or --expires')
      }
      return call('adminUpdateKey', 'PATCH', `/keys/${segment(arg, 'a key id')}`, body)
    }
    case 'keys rotate':
      return call(
        'adminRotateKey',
        'POST',
        `/keys/${segment(arg, 'a key id')}/rotate`,
        o.overlap === undefined ? {} : { overlapS: seconds(o.overlap, '--overlap') },
      )
    case 'keys revoke':
      return call('adminCreateRevocation', 'POST', '/revocations', {
        kind: 'key',
        key: need(arg, 'a key id'),
      })
    case 'grants create':
      return call(
        'adminCreateGrant',
        'POST',
        `/grants${query({ allowUnknownKey: flags['allow-unknown-key'] ? 'true' : undefined })}`,
        json(need(arg, 'a grant'), 'the grant'),
      )
    case 'grants list':
      return call(
        'adminListGrants',
        'GET',
        `/grants${query({ to: o.to, limit: o.limit, cursor: o.cursor })}`,
      )
    case 'grants effective':
      return call(
        'adminEffectiveGrants',
        'GET',
        `/grants/effective${query({ caller: need(o.caller, '--caller'), role: o.role, email: o.email })}`,
      )
    case 'grants delete':
      return call('adminDeleteGrant', 'DELETE', `/grants/${segment(arg, 'a grant id')}`)
    case 'revocations create': {
      if (o.link !== undefined) {
        return call('adminCreateRevocation', 'POST', '/revocations', { kind: 'link', link: o.link })
      }
      if (o.key !== undefined) {
        return call('adminCreateRevocation', 'POST', '/revocations', { kind: 'key', key: o.key })
      }
      return call('adminCreateRevocation', 'POST', '/revocations', {
        kind: 'links',
        issuedBefore: when(
          need(o['issued-before'], '--link, --key or --issued-before'),
          '--issued-before',
          now,
        ),
        ...(o.origin && { origin: o.origin }),
        ...(o.principal && { principal: o.principal }),
      })
    }
    case 'revocations list':
      return call('adminListRevocations', 'GET', `/revocations${page()}`)
    case 'revocations delete':
      return call(
        'adminDeleteRevocation',
        'DELETE',
        `/revocations/${segment(arg, 'a revocation id')}`,
      )
    case 'quotas create':
      return call('adminCreateQuota', 'POST', '/quotas', {
        to: need(o.to, '--to'),
        origin: need(o.origin, '--origin'),
        maxObjects: number(o['max-objects'], '--max-objects'),
        maxBytes: number(o['max-bytes'], '--max-bytes'),
        windowS: /** @type {number} */ (seconds(need(o.window, '--window'), '--window')),
      })
    case 'quotas list':
      return call('adminListQuotas', 'GET', `/quotas${page()}`)
    case 'quotas show':
      return call(
        'adminGetQuota',
        'GET',
        `/quotas/${segment(arg, 'a quota id')}${query({ caller: o.caller })}`,
      )
    case 'quotas update': {
      const body = {
        ...(o['max-objects'] === undefined ? {} : { maxObjects: limit('max-objects') }),
        ...(o['max-bytes'] === undefined ? {} : { maxBytes: limit('max-bytes') }),
      }
      if (Object.keys(body).length === 0) {
        throw new UsageError('quotas update needs --max-objects or --max-bytes')
      }
      return call('adminUpdateQuota', 'PATCH', `/quotas/${segment(arg, 'a quota id')}`, body)
    }
    case 'quotas delete':
      return call('adminDeleteQuota', 'DELETE', `/quotas/${segment(arg, 'a quota id')}`)
    case 'usage top':
      return call(
        'adminGetTopUsage',
        'GET',
        `/usage/top${query({ by: o.by, limit: o.limit, from: o.from, to: o.to })}`,
      )
    case 'explain': {
      if ((o.key === undefined) === (o.claims === undefined)) {
        throw new UsageError('explain needs --key or --claims, one of them')
      }
      const length = number(o['content-length'], '--content-length')
      return call('adminExplain', 'POST', '/explain', {
        caller:
          o.key === undefined
            ? {
                claims: json(/** @type {string} */ (o.claims), '--claims'),
                ...(o.via && { via: /** @type {'jwt' | 'access'} */ (o.via) }),
              }
            : { key: o.key },
        action: /** @type {'read'} */ (need(o.action, '--action')),
        origin: need(o.origin, '--origin'),
        key: need(o.object, '--object'),
        ...(o['content-type'] && { contentType: o['content-type'] }),
        ...(length !== undefined && { contentLength: length }),
        ...(flags.overwrite && { overwrite: true }),
        ...(o['expires-in'] && { expiresIn: seconds(o['expires-in'], '--expires-in') }),
      })
    }
    case 'export':
      return call('adminExport', 'GET', `/export${flags.secrets ? '?secrets=include' : ''}`)
    case 'usage': {
      // The API names a caller only: a key's is `apiKey:<id>`. Neither: every caller's.
      if (o.key !== undefined && o.principal !== undefined) {
        throw new UsageError('usage takes --key or --principal, one of them')
      }
      const principal = o.principal ?? (o.key === undefined ? undefined : `apiKey:${o.key}`)
      return call('adminGetUsage', 'GET', `/usage${query({ principal, from: o.from, to: o.to })}`)
    }
    case 'audit':
      return call(
        'adminListAudit',
        'GET',
        `/audit${query({
          principal: o.principal,
          key: o.key,
          action: o.action,
          outcome: o.outcome,
          from: o.from && when(o.from, '--from', now),
          to: o.to && when(o.to, '--to', now),
          limit: o.limit,
          cursor: o.cursor,
        })}`,
      )
    default:
      throw new UsageError(`unknown command: ${[resource, verb].filter(Boolean).join(' ')}`)
  }
}

/**
 * A new admin token and its WAYBILL_ADMIN_TOKENS entry (only the SHA-256 is configured).
 * @param {string} id
 */
export function adminToken(id) {
  const token = newSecret('wba_')
  return { token, entry: hashedEntry(id, token) }
}

/** A cell: text as it is, anything else as compact JSON, cut to a terminal's width. @param {unknown} value */
function cell(value) {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'string'
        ? value
        : JSON.stringify(value)
  return text.length > 60 ? `${text.slice(0, 59)}…` : text
}

/** @param {string[][]} rows */
function aligned(rows) {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0))) ?? []
  return rows.map((row) =>
    row
      .map((text, i) => text.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  )
}

/**
 * An answer as a terminal shows it: the list it holds as a table (one row per record, a column per
 * field), its other fields as `name  value` lines; an object without a list as those lines only.
 *
 * @example
 * table({ keys: [{ id: 'web', label: null }], cursor: null })
 * // ['id   label', 'web', '', 'cursor']
 * @param {unknown} answer
 * @returns {string[]}
 */
export function table(answer) {
  if (typeof answer !== 'object' || answer === null) return [cell(answer)]
  const entries = Object.entries(answer)
  const list = entries.find(
    ([, value]) =>
      Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null),
  )
  const lines = []
  if (list !== undefined) {
    const items = /** @type {Record<string, unknown>[]} */ (list[1])
    const columns = [...new Set(items.flatMap((item) => Object.keys(item)))]
    lines.push(
      ...(items.length === 0
        ? [`(no ${list[0]})`]
        : aligned([columns, ...items.map((item) => columns.map((c) => cell(item[c])))])),
    )
    if (entries.length > 1) lines.push('')
  }
  lines.push(
    ...aligned(
      entries.filter((entry) => entry !== list).map(([name, value]) => [name, cell(value)]),
    ),
  )
  return lines
}

/**
 * A problem's lines: its status and detail once, then each field the detail does not already name.
 * @param {number} status
 * @param {string} text
 */
export function problemLines(status, text) {
  /** @type {{ detail?: string, title?: string, errors?: { path: string, message: string }[] }} */
  let problem
  try {
    problem = JSON.parse(text)
  } catch {
    problem = { detail: text }
  }
  const detail = problem.detail ?? problem.title ?? text
  const fields = (problem.errors ?? [])
    .map(({ path, message }) => `${path}: ${message}`)
    .filter((line) => !detail.includes(line))
  return [`${status}: ${detail}`, ...fields.map((line) => `  ${line}`)]
}

/**
 * Runs a command: prints the answer and answers the exit code (2: the command line is wrong; 1:
 * the API refused). `fetch`, `env`, `print`, `fail` and `tty` are the process's unless a test gives
 * its own.
 * @param {string[]} argv
 * @param {{ fetch?: (url: string, init: RequestInit) => Promise<Response>, env?: Record<string, string | undefined>, print?: (line: string) => void, fail?: (line: string) => void, tty?: boolean, now?: Date }} [deps]
 */
export async function runAdmin(argv, deps = {}) {
  const {
    fetch: send = fetch,
    env = process.env,
    print = console.log,
    fail = console.error,
    tty = process.stdout.isTTY === true,
    now = new Date(),
  } = deps
  let request
  try {
    request = adminRequest(argv, now)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    if (error.message !== '') fail(error.message)
    fail(USAGE)
    return error.message === '' && argv.some((a) => a === '--help' || a === '-h') ? 0 : 2
  }
  if ('token' in request) {
    const { token, entry } = adminToken(request.token)
    print(`Admin token (give it to the operator; it is not stored anywhere): ${token}`)
    print(`WAYBILL_ADMIN_TOKENS entry: ${JSON.stringify(entry)}`)
    print(
      "Deployed: add the entry to the admin plane's JSON array (npx wrangler secret put WAYBILL_ADMIN_TOKENS -c wrangler.admin.jsonc --env production).",
    )
    return 0
  }
  const token = env.WAYBILL_ADMIN_TOKEN
  if (!token) {
    fail('Set WAYBILL_ADMIN_TOKEN to an admin token (npm run admin -- token <id> makes one).')
    return 2
  }
  const base = request.url ?? env.WAYBILL_ADMIN_URL ?? 'http://127.0.0.1:8788'
  let response
  try {
    response = await send(`${base.replace(/\/$/, '')}/admin/v1${request.path}`, {
      method: request.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    })
  } catch (error) {
    fail(`The admin plane at ${base} cannot be reached: ${/** @type {Error} */ (error).message}`)
    return 1
  }
  const text = await response.text()
  if (!response.ok) {
    for (const line of problemLines(response.status, text)) fail(line)
    return 1
  }
  if (text === '') {
    print(request.json ? JSON.stringify({ status: response.status }) : `${response.status}`)
    return 0
  }
  const answer = JSON.parse(text)
  if (request.json || !tty) print(JSON.stringify(answer, null, 2))
  else for (const line of table(answer)) print(line)
  return 0
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await runAdmin(process.argv.slice(2))
}
