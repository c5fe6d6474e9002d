// Explain, in the data plane: what a caller's request would be answered, found by the same code
// that answers it, over the same configuration and control plane. The caller (a key's standing,
// or a token's claims read as authentication reads them), the grants and quotas the control plane
// gives it (`configFor`, as authentication does), then the request's own authorization: the /v1/sign
// batch (`signBatch`, which authorizes and prepares the signer, signing nothing), the uploads'
// (`authorizeUploads`), the listing's (`listPermit`). Nothing is signed, reserved or stored.
// Each grant that reaches the caller on the origin is also judged alone, with the same code.

import * as v from 'valibot'
import { accessPrincipal, jwtPrincipal } from '../auth/tokens'
import type { Config, Grant } from '../config'
import { grantJson } from '../config/grants'
import { subjectMatches, subjectsOf, subjectText } from '../principal/subjects'
import { fallenKey, type ControlPlane, type Defer } from '../control/plane'
import { quotaFor } from '../control/quota'
import { invalid, WaybillError } from '../errors'
import { principalName, type Principal } from '../principal'
import { ListQuery } from '../schemas/list'
import { SignBody } from '../schemas/sign'
import { UploadBody } from '../schemas/uploads'
import { fieldErrors } from '../schemas/valibot'
import { listPermit } from '../services/list'
import { signBatch } from '../services/sign'
import { authorizeUploads } from '../services/uploads/issue'
import type { Explained, ExplainInput, Verdict } from '../schemas/bridge'

// Where the Worker's own URLs would start (an R2 origin's /o/): nothing is signed here, so no
// answer carries one, and the verdict never depends on it.
const EXPLAIN_BASE = 'https://waybill.invalid'

/** The request `input` asks about, as a caller would send it (and as its schema reads it). */
function requestOf(input: ExplainInput) {
  const { action, origin, key } = input
  if (action === 'write') {
    return {
      method: 'POST',
      path: '/v1/uploads',
      body: {
        origin,
        key,
        contentType: input.contentType ?? 'application/octet-stream',
        ...(input.contentLength === undefined ? {} : { contentLength: input.contentLength }),
        ...(input.overwrite === undefined ? {} : { overwrite: input.overwrite }),
        ...(input.expiresIn === undefined ? {} : { expiresIn: input.expiresIn }),
      },
    }
  }
  if (action === 'list') {
    return { method: 'GET', path: `/v1/list/${origin}?prefix=${encodeURIComponent(key)}` }
  }
  return {
    method: 'POST',
    path: '/v1/sign',
    body: {
      origin,
      keys: [key],
      ...(action === 'delete' ? { method: 'DELETE' } : {}),
      ...(action === 'debug' ? { debug: true } : {}),
      ...(input.expiresIn === undefined ? {} : { expiresIn: input.expiresIn }),
    },
  }
}

/** `input` read by `schema`, as the route's validator reads it: its problems a 400. */
function parsed<const TSchema extends v.GenericSchema>(schema: TSchema, input: unknown) {
  const result = v.safeParse(schema, input)
  if (!result.success) throw invalid(fieldErrors(result.issues))
  return result.output
}

/** Runs the request's authorization for `principal` under `config`: its verdict. */
function judge(config: Config, principal: Principal, input: ExplainInput, now: Date): Verdict {
  try {
    const { body } = requestOf(input)
    if (input.action === 'write') {
      const request = parsed(UploadBody, body)
      // A fixed uuid: an uploadKey's {uuid} never decides a verdict.
      authorizeUploads(config, principal, request, () => '00000000-0000-4000-8000-000000000000')
    } else if (input.action === 'list') {
      listPermit(config, principal, input.origin, parsed(ListQuery, { prefix: input.key }))
    } else {
      signBatch(config, principal, parsed(SignBody, body), now, EXPLAIN_BASE)
    }
    return { allowed: true, status: 200 }
  } catch (error) {
    if (!(error instanceof WaybillError)) throw error
    return {
      allowed: false,
      status: error.status,
      code: error.code,
      detail: error.message,
      errors: error.errors,
    }
  }
}

/** The verdict of a refusal before authorization: the caller could not authenticate. */
const unauthenticated = (detail: string): Verdict => ({
  allowed: false,
  status: 401,
  code: 'unauthorized',
  detail,
  errors: [],
})

/**
 * What `input`'s request would be answered, and why: by `config` (the data plane's), its control
 * plane through `control`, at `now`.
 */
export async function explain(
  config: Config,
  control: ControlPlane,
  input: ExplainInput,
  now: Date,
  defer: Defer,
): Promise<Explained> {
  let principal: Principal
  let fallen: 'revoked' | 'expired' | 'unknown' | null = null
  let before: Verdict | undefined
  const { caller } = input
  if ('key' in caller) {
    principal = { kind: 'api-key', id: caller.key, claims: {}, roles: new Set() }
    if (!config.apiKeys.some((key) => key.id === caller.key)) {
      const standing =
        config.control === undefined
          ? undefined
          : await control.issuer(config, caller.key, now, defer)
      if (standing === undefined) fallen = 'unknown'
      else {
        const reason = fallenKey(
          { id: caller.key, ...standing, secretExpiresAt: null },
          now.getTime(),
        )
        fallen = reason === 'revoked' || reason === 'expired' ? reason : null
        principal = { ...principal, keyExpiresAt: standing.expiresAt ?? undefined }
      }
      // As authentication answers such a key: it names none of this.
      if (fallen !== null) before = unauthenticated('The API key is not valid.')
    }
  } else {
    try {
      if (caller.via === 'jwt') {
        if (config.jwt === undefined) {
          throw new WaybillError('unauthorized', 'JWTs are not configured (WAYBILL_AUTH.jwt).')
        }
        principal = jwtPrincipal(caller.claims, config.jwt)
      } else principal = accessPrincipal(caller.claims)
    } catch (error) {
      if (!(error instanceof WaybillError)) throw error
      principal = { kind: caller.via, id: '', claims: {}, roles: new Set() }
      before = unauthenticated(error.message)
    }
  }
  const own =
    config.control === undefined ? config : await control.configFor(config, principal, now, defer)
  const reaching = own.grants.filter(
    (grant) => grant.origin === input.origin && subjectMatches(grant.subject, principal),
  )
  const envGrants = new Set<Grant>(config.grants)
  return {
    ok: true,
    caller: {
      principal: principalName(principal),
      subjects: subjectsOf(principal).map(subjectText),
      fallen,
    },
    request: requestOf(input),
    verdict: before ?? judge(own, principal, input, now),
    grants: reaching.map((grant) => ({
      source: envGrants.has(grant) ? ('env' as const) : ('stored' as const),
      grant: grantJson(grant),
      verdict: judge({ ...own, grants: [grant] }, principal, input, now),
    })),
    quota: ((quota) =>
      quota === undefined
        ? null
        : {
            id: quota.id,
            to: subjectText(quota.subject),
            maxObjects: quota.maxObjects ?? null,
            maxBytes: quota.maxBytes ?? null,
            windowS: quota.windowS,
          })(quotaFor(own.quotas, principal, input.origin)),
  }
}
