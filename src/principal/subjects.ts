// Who a grant or a quota is for: its subject, and which subjects reach a caller. Below auth, config
// and the control plane, which all judge by them: a grant applies exactly when its subject is one
// of the caller's (`subjectsOf`), and the control plane reads a caller's stored grants by them.

import { base64UrlEncode } from '../core/bytes'
import { sha256Text } from '../core/sigv4/sha256'
import type { Principal } from '.'

/** Who a grant is for. `any` is every authenticated caller (use with a `{sub}` prefix). */
export type GrantSubject =
  | { readonly kind: 'apiKey'; readonly value: string }
  | { readonly kind: 'sub'; readonly value: string }
  | { readonly kind: 'role'; readonly value: string }
  | { readonly kind: 'email'; readonly value: string }
  | { readonly kind: 'any' }

const SUBJECT_KINDS = ['apiKey', 'sub', 'role', 'email'] as const

/** The subject `to` names, or undefined. */
export function subjectOf(to: string): GrantSubject | undefined {
  if (to === '*') return { kind: 'any' }
  const [, prefix, value] = /^([A-Za-z]+):(.+)$/s.exec(to) ?? []
  const kind = SUBJECT_KINDS.find((known) => known === prefix)
  return kind === undefined || value === undefined ? undefined : { kind, value }
}

/** A subject as a grant's `to` says it: `apiKey:web`, `role:admin`, `*`. */
export function subjectText(subject: GrantSubject): string {
  return subject.kind === 'any' ? '*' : `${subject.kind}:${subject.value}`
}

/**
 * Every subject a grant may name to reach `principal`: a grant applies exactly when its subject is
 * one of these (`subjectMatches`). The control plane reads a caller's stored grants by them.
 */
export function subjectsOf(principal: Principal): GrantSubject[] {
  const subjects: GrantSubject[] = [
    principal.kind === 'api-key'
      ? { kind: 'apiKey', value: principal.id }
      : { kind: 'sub', value: principal.id },
  ]
  if (principal.email !== undefined) subjects.push({ kind: 'email', value: principal.email })
  for (const role of [...principal.roles].sort()) subjects.push({ kind: 'role', value: role })
  subjects.push({ kind: 'any' })
  return subjects
}

export function subjectMatches(subject: GrantSubject, principal: Principal): boolean {
  switch (subject.kind) {
    case 'any':
      return true
    case 'apiKey':
      return principal.kind === 'api-key' && principal.id === subject.value
    case 'sub':
      return principal.kind !== 'api-key' && principal.id === subject.value
    case 'role':
      return principal.roles.has(subject.value)
    case 'email':
      return principal.email !== undefined && principal.email === subject.value
  }
}

/**
 * A hash of a caller as the request log names it (`jwt:alice`), so a link does not show who made
 * it but a revocation naming the caller still finds it: 8 bytes of SHA-256, base64url.
 */
export function principalHash(principal: string): string {
  return base64UrlEncode(sha256Text(principal).subarray(0, 8))
}
