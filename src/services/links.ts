// Signed links: issue them for a caller's objects (POST /v1/links), and follow one (GET /l/{token})
// to a freshly signed URL that lives only minutes.

import { newLinkId, signLink, verifyLink, type LinkPayload } from '../auth/links'
import { principalHash } from '../principal/subjects'
import { linkPermit } from '../auth/policy'
import { issuerStands, type KeyStanding } from '../auth/standing'
import { bindingOfName, principalBinding, type Principal } from '../principal'
import type { Config, LinkRevocation } from '../config'
import { LINK_URL_EXPIRES_S } from '../limits'
import { epochSeconds } from '../core/sigv4/time'
import { invalid, WaybillError } from '../errors'
import type { LinksBody } from '../schemas/links'
import type { LinkFacts } from '../control/plane'
import { objectItem, type ObjectRequest } from './objects'
import { permitFor } from './permits'
import { batchSigner } from './signers'

/** What a link asks of its object's answer, in the payload's short form. */
function options(request: ObjectRequest): Pick<LinkPayload, 'd' | 'n' | 't'> {
  const name = request.download ?? request.inline
  return {
    ...(name === undefined ? {} : { d: request.download !== undefined ? 'attachment' : 'inline' }),
    ...(typeof name === 'string' ? { n: name } : {}),
    ...(request.contentType === undefined ? {} : { t: request.contentType }),
  }
}

/**
 * Links for a caller's objects: authorized as reads of each (a link's life is bounded by the
 * grants' `maxLinkExpiresIn`, and by the caller's key: a link never outlives it), each a token
 * under the first token secret, naming the key that issued it.
 */
export function issueLinks(
  config: Config,
  principal: Principal,
  body: LinksBody,
  baseUrl: string,
  now: Date,
) {
  const requests: readonly ObjectRequest[] = body.items ?? (body.keys ?? []).map((key) => ({ key }))
  const field = body.keys !== undefined ? 'keys' : 'items'
  const permit = permitFor(config, principal, {
    kind: 'links',
    origin: body.origin,
    items: requests.map(objectItem),
    itemPath: field === 'keys' ? (i) => `keys.${i}` : (i) => `items.${i}.key`,
    overridePath: (i) => `${field}.${i}.contentType`,
    expiresIn: body.expiresIn,
  })
  const issued = epochSeconds(now)
  // A link never outlives the key that issued it: asked for longer, a 400; by default, cut short.
  const keyLeft =
    principal.keyExpiresAt === undefined
      ? Infinity
      : Math.floor(principal.keyExpiresAt / 1000) - issued
  if (body.expiresIn !== undefined && body.expiresIn > keyLeft) {
    throw invalid([
      {
        path: 'expiresIn',
        message: `must be at most ${keyLeft} for this caller: a link never outlives the API key that issues it, which expires at ${new Date(principal.keyExpiresAt!).toISOString()}`,
      },
    ])
  }
  const expires = issued + Math.min(permit.expiresIn, keyLeft)
  const by = principalHash(principalBinding(principal))
  const key = principal.kind === 'api-key' ? principal.id : null
  const links = requests.map((request) => {
    const id = newLinkId()
    const token = signLink(config, {
      o: permit.origin.name,
      k: request.key,
      e: expires,
      i: issued,
      p: by,
      a: key,
      j: id,
      ...options(request),
    })
    return { key: request.key, url: `${baseUrl}/l/${token}`, id }
  })
  return { origin: permit.origin.name, expiresAt: new Date(expires * 1000).toISOString(), links }
}

/** True when a configured revocation covers the link. */
function revoked(revocations: readonly LinkRevocation[], link: LinkPayload): boolean {
  return revocations.some(
    (revocation) =>
      link.i * 1000 < revocation.issuedBefore &&
      (revocation.origin === undefined || revocation.origin === link.o) &&
      (revocation.principal === undefined ||
        principalHash(bindingOfName(revocation.principal)) === link.p),
  )
}

/** What following a link asks of the control plane, when one is bound. */
export interface LinkChecks {
  /** Whether it revoked the link (by its id, or by when, where and by whom it was issued). */
  readonly revoked: (link: LinkFacts) => Promise<boolean>
  /** A stored API key's standing, by its id (undefined: no such key). */
  readonly storedKey: (id: string) => Promise<KeyStanding | undefined>
}

const FALLEN = {
  revoked: 'was revoked',
  expired: 'has expired',
  unknown: 'is no longer configured',
} as const

/**
 * Where a link leads now: a URL signed for minutes (never past the link's own end), with the
 * redirect's cache rule. 404 for what is not a link, 403 for a token tampered with or under a
 * secret no longer configured, 410 for a link expired or revoked, or whose issuer's key no longer
 * stands (revoked, expired, removed: src/auth/standing.ts).
 */
export async function followLink(config: Config, token: string, now: Date, control?: LinkChecks) {
  const notALink = () =>
    new WaybillError('not_found', 'No such link.', {
      errors: [{ path: 'token', message: 'is not a link waybill issued' }],
    })
  const verified = verifyLink(config, token)
  if ('fault' in verified) {
    if (verified.fault === 'malformed') throw notALink()
    throw new WaybillError('forbidden', 'This link is not valid.', {
      errors: [
        {
          path: 'token',
          message:
            verified.fault === 'tampered'
              ? 'does not match its signature'
              : 'was signed with a secret this waybill no longer has',
        },
      ],
    })
  }
  const link = verified.payload
  const left = link.e - epochSeconds(now)
  if (left <= 0) {
    throw new WaybillError('gone', `This link expired at ${new Date(link.e * 1000).toISOString()}.`)
  }
  if (link.a === undefined) {
    throw new WaybillError(
      'gone',
      'This link was issued before links named their issuer, which is checked on every visit now; it no longer works: ask for a new one.',
    )
  }
  const facts: LinkFacts = { id: link.j, issuedAtMs: link.i * 1000, origin: link.o, issuer: link.p }
  // The env's revocations, then the control plane's (by id, or by time).
  if (
    revoked(config.linkRevocations, link) ||
    (control !== undefined && (await control.revoked(facts)))
  ) {
    throw new WaybillError('gone', 'This link has been revoked.')
  }
  // The key that issued it must still stand: a revoked or expired key's links stop at once.
  const issuer =
    link.a === null ? ({ kind: 'token' } as const) : { kind: 'api-key' as const, id: link.a }
  const judged = issuerStands(config, issuer, now.getTime(), control?.storedKey)
  const fallen = judged === undefined ? undefined : await judged
  if (fallen !== undefined) {
    throw new WaybillError('gone', `The API key that issued this link ${FALLEN[fallen]}.`)
  }
  const name = link.n ?? true
  const permit = linkPermit(config, {
    origin: link.o,
    item: objectItem({
      key: link.k,
      download: link.d === 'attachment' ? name : undefined,
      inline: link.d === 'inline' ? name : undefined,
      contentType: link.t,
    }),
    // At most five minutes, whatever the origin's signing window, and never past the link's end.
    expiresIn: Math.min(LINK_URL_EXPIRES_S, left),
    maxLifetime: Math.min(LINK_URL_EXPIRES_S, left),
  })
  if (permit === undefined) {
    throw new WaybillError('not_found', 'This link leads to nothing that can be signed now.')
  }
  const signer = batchSigner(permit, { method: 'GET', now })
  const [location] = await signer.sign()
  return { location: location!, expiresAt: signer.expiresAt, link: facts }
}
