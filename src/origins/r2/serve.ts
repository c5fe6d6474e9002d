// Every request for an R2 origin's objects (`/o/<origin>/…`): its URL verified first (signature,
// expiry, secret), then its issuer's standing (a revoked key's URLs stop at once), then the read,
// write or delete it allows. CORS is the origin's own setting, as a bucket's CORS rules are for S3;
// a preflight needs no signature (it carries none), and is answered from that setting alone.

import { verifyOwnHref, type OwnFault, type OwnMethod } from '../../core/own/url'
import { WaybillError } from '../../errors'
import { allowedOrigin, type CorsConfig } from '../../schemas/cors'
import type { ServeContext, Served } from '../types'
import { deliver } from './deliver'
import { postForm } from './forms'
import type { R2Settings } from './settings'
import { deleteObject, putObject, putPart } from './store'

const OBJECT_METHODS = 'GET, HEAD, PUT, DELETE'
const FORM_METHODS = 'POST'
const FORM_PATHS = (origin: string) => new Set([`/o/${origin}`, `/o/${origin}/`])
const REQUEST_HEADERS = [
  'content-type',
  'range',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'if-range',
].join(', ')
const EXPOSED = [
  'etag',
  'location',
  'content-length',
  'content-range',
  'content-disposition',
  'last-modified',
  'accept-ranges',
].join(', ')

/** The CORS headers for a request from `origin` (none for a page the setting does not list). */
function corsHeaders(cors: CorsConfig | undefined, origin: string | null): Record<string, string> {
  if (cors === undefined || origin === null) return {}
  const allowed = allowedOrigin(cors, origin)
  if (allowed === undefined) return {}
  return {
    'access-control-allow-origin': allowed,
    'access-control-expose-headers': EXPOSED,
    ...(cors.origins === '*' ? {} : { vary: 'Origin' }),
  }
}

function preflight(cors: CorsConfig | undefined, request: Request, origin: string): Response {
  const allowed = corsHeaders(cors, request.headers.get('origin'))
  // A form is posted to the origin itself; every other request goes to an object's URL.
  const methods = FORM_PATHS(origin).has(new URL(request.url).pathname)
    ? FORM_METHODS
    : OBJECT_METHODS
  if (!('access-control-allow-origin' in allowed)) {
    // No CORS for this page: the browser refuses the request it wanted to send.
    return new Response(null, { status: 204, headers: { allow: `${methods}, OPTIONS` } })
  }
  return new Response(null, {
    status: 204,
    headers: {
      ...allowed,
      'access-control-allow-methods': methods,
      'access-control-allow-headers': REQUEST_HEADERS,
      'access-control-max-age': String(cors!.maxAgeS),
    },
  })
}

const FAULTS: Readonly<Record<OwnFault, string>> = {
  malformed: 'is not a URL waybill signed (a parameter is missing, unknown, repeated or malformed)',
  tampered: 'does not match its signature',
  unknown_secret: 'was signed with a secret this waybill no longer has',
  expired: 'has expired',
}

/** The method an own URL is signed for, for a request's method (undefined: no URL allows it). */
const SIGNED_FOR: Readonly<Record<string, OwnMethod>> = {
  GET: 'GET',
  HEAD: 'GET',
  PUT: 'PUT',
  DELETE: 'DELETE',
}

/** The R2 origin `origin`'s requests, served from its bucket. */
export function r2Served(origin: string, settings: R2Settings): Served {
  return {
    serve(request, context) {
      const method = request.method
      if (method === 'OPTIONS') return Promise.resolve(preflight(settings.cors, request, origin))
      // Without a CORS setting no answer carries CORS headers: the page's origin goes unread.
      if (settings.cors === undefined) return answer(request, method, origin, settings, context)
      return withCors(settings.cors, request, answer(request, method, origin, settings, context))
    },
  }
}

/** `answered` with the CORS headers for the request's page, its refusals too. */
async function withCors(
  setting: CorsConfig,
  request: Request,
  answered: Promise<Response>,
): Promise<Response> {
  const cors = corsHeaders(setting, request.headers.get('origin'))
  try {
    const response = await answered
    for (const [name, value] of Object.entries(cors)) response.headers.set(name, value)
    return response
  } catch (error) {
    // A refusal a page may read: the browser shows its reason, not a CORS failure.
    if (!(error instanceof WaybillError)) throw error
    throw new WaybillError(error.code, error.message, {
      errors: error.errors,
      headers: { ...error.headers, ...cors },
    })
  }
}

async function answer(
  request: Request,
  requestMethod: string,
  origin: string,
  settings: R2Settings,
  context: ServeContext,
): Promise<Response> {
  if (requestMethod === 'POST') {
    if (!FORM_PATHS(origin).has(new URL(request.url).pathname)) {
      throw notAllowed('a form is posted to the origin itself, /o/<origin>', OBJECT_METHODS)
    }
    return postForm(request, origin, settings, context)
  }
  const method = SIGNED_FOR[requestMethod]
  if (method === undefined) {
    const form = FORM_PATHS(origin).has(new URL(request.url).pathname)
    throw notAllowed(`no URL allows ${requestMethod}`, form ? FORM_METHODS : OBJECT_METHODS)
  }
  const nowS = Math.floor(context.now.getTime() / 1000)
  const verified = verifyOwnHref(context.secrets, request.url, method, nowS)
  if ('fault' in verified) {
    const message = FAULTS[verified.fault]
    const detail = verified.fault === 'expired' ? 'This URL has expired.' : `This URL ${message}.`
    throw new WaybillError('forbidden', detail, { errors: [{ path: 'url', message }] })
  }
  if (verified.origin !== origin) throw new Error('an own URL reached another origin')
  // Most issuers are judged at once: no await for them.
  const judged = context.fallen(verified.issuer)
  const fallen = typeof judged === 'object' ? await judged : judged
  if (fallen !== undefined) {
    throw new WaybillError('forbidden', `The API key that issued this URL ${fallen}.`, {
      errors: [{ path: 'url', message: `was issued by a key that ${fallen}` }],
    })
  }
  if (method === 'GET') return deliver(request, verified, settings, context)
  if (method === 'DELETE') return deleteObject(verified, settings, context)
  return verified.terms.uploadId === undefined
    ? putObject(request, verified, settings, context)
    : putPart(request, verified, settings, context)
}

function notAllowed(why: string, methods: string): WaybillError {
  return new WaybillError('method_not_allowed', `This method is not allowed here: ${why}.`, {
    headers: { allow: `${methods}, OPTIONS` },
  })
}
