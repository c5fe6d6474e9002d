// Signed links: issue them for a caller's objects (POST /v1/links), and follow one (GET /l/{token})
// to a freshly signed URL that lives only minutes. A link with `maxUses` counts each visit in its
// own Durable Object (src/control/link-uses.ts), after every other check.

import { newLinkId, signLink, verifyLink, type LinkPayload } from '../auth/links'
import { principalHash } from '../principal/subjects'
import { linkPermit } from '../auth/policy'
import { issuerFallen, type KeyStanding } from '../auth/standing'
import { bindingOfName, principalBinding, type Principal } from '../principal'
import type { Config, LinkRevocation } from '../config'
import { CONTROL_RETRY_AFTER_S, LINK_URL_EXPIRES_S } from '../limits'
import { epochSeconds } from '../core/sigv4/time'
import { invalid, WaybillError } from '../errors'
import type { LinksBody } from '../schemas/links'
import type { LinkUse, LinkUses } from '../control/link-uses'
import { unavailable, type LinkFacts } from '../control/plane'
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
 * under the first token secret, naming the key that issued it and the uses it allows (a 400 for
 * `maxUses` where no counters are bound).
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
  if (body.maxUses !== undefined && config.linkUses === undefined) {
    throw invalid([
      {
        path: 'maxUses',
        message:
          'cannot be counted: this waybill has no link-use counters bound (WAYBILL_LINK_USES, a Durable Object namespace of class LinkUses in wrangler.jsonc)',
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
      ...(body.maxUses === undefined ? {} : { u: body.maxUses }),
    })
    return { key: request.key, url: `${baseUrl}/l/${token}`, id }
  })
  return {
    origin: permit.origin.name,
    expiresAt: new Date(expires * 1000).toISOString(),
    ...(body.maxUses === undefined ? {} : { maxUses: body.maxUses }),
    links,
  }
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

const notALink = () =>
  new WaybillError('not_found', 'No such link.', {
    errors: [{ path: 'token', message: 'is not a link waybill issued' }],
  })

/** A counted link's uses once a visit is counted: how many it allows, and how many are left. */
export interface LinkUseCount {
  readonly max: number
  readonly left: number
}

const times = (n: number) => `${n} time${n === 1 ? '' : 's'}`

/**
 * Counts one visit to a link that allows `max` uses, in the link's own counter: the last step of
 * following it, so that a visit refused for anything else never spends a use. 410 once every use
 * is spent; 503 when the counter cannot be reached or is not bound: never an uncounted visit.
 */
async function countUse(
  config: Config,
  link: LinkPayload,
  max: number,
  now: Date,
): Promise<LinkUseCount> {
  // Every link with uses has an id (signLink requires one); a token without is none of ours.
  if (link.j === undefined) throw notALink()
  if (config.linkUses === undefined) {
    throw new WaybillError(
      'control_unavailable',
      'This link counts its uses, but no link-use counters are bound (WAYBILL_LINK_USES), so it cannot be followed now.',
      { headers: { 'retry-after': String(CONTROL_RETRY_AFTER_S) } },
    )
  }
  // The binding's class, as wrangler.jsonc binds it (config checks it is a namespace).
  const counters = config.linkUses as unknown as DurableObjectNamespace<LinkUses>
  let use: LinkUse
  try {
    use = await counters.get(counters.idFromName(link.j)).use(max, link.e * 1000, now.getTime())
  } catch (error) {
    throw unavailable(
      error,
      "This link's use counter cannot be reached, so the visit could not be counted; retry shortly.",
    )
  }
  if (!use.ok) {
    throw new WaybillError(
      'gone',
      `This link was used its ${times(max)}, all it allows; it works no more.`,
    )
  }
  return { max, left: use.left }
}

/**
 * Where a link leads now: a URL signed for minutes (never past the link's own end), with the
 * redirect's cache rule, and for a link with `maxUses` the uses left once this one is counted.
 * 404 for what is not a link, 403 for a token tampered with or under a secret no longer
 * configured, 410 for a link expired or revoked, or whose issuer's key no longer stands
 * (revoked, expired, removed: src/auth/standing.ts), or whose uses are all spent.
 */
export async function followLink(
  config: Config,
  token: string,
  now: Date,
  base: string,
  control?: LinkChecks,
) {
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
  const fallen = await issuerFallen(config, link.a, now, control?.storedKey)
  if (fallen !== undefined) {
    throw new WaybillError('gone', `The API key that issued this link ${fallen}.`)
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
  // Its URL answers to the link's issuer, as the link does.
  const minting = { base, issuer: link.a, secrets: config.tokenSecrets }
  const signer = batchSigner(permit, { method: 'GET', now, minting })
  const [location] = await signer.sign()
  // Last, once everything else has passed (signing too).
  const uses = link.u === undefined ? undefined : await countUse(config, link, link.u, now)
  return { location: location!, expiresAt: signer.expiresAt, link: facts, uses }
}
