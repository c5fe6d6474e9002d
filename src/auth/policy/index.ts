// What a principal may sign. Every artifact waybill signs is first described by what it lets its
// holder do: a `Reach` (./reach.ts), one variant per kind of artifact (URLs, a wildcard policy, a
// listing, an upload, links). `authorize` (./authorize.ts) compares it with the caller's grants,
// rule by rule, one small rule per grant field (./rules/), and answers a `Permit` (the only thing
// the signers in src/services/signers.ts accept) or a `Refusal` that says why, field by field
// (./permit.ts). The services turn a refusal into a problem.
//
// One grant justifies each target (each key, pattern or prefix): a single grant must allow every
// field of it at once (its key, action, content type, size, overwrite, response type, batch size,
// lifetime and window). Limits are never combined across grants. A limit counts only where the
// signature enforces it: a limit the holder could simply not send is no limit.
//
// Pure: no I/O, no clock, no HTTP. Deny by default.

export { authorize } from './authorize'
export {
  applicable,
  deletesMismatched,
  grantedOrigin,
  mayRead,
  prefixCovers,
  resolvePrefix,
  uploadKeyFor,
} from './grants'
export { linkPermit } from './link-permit'
export { isPermit, isRefusal, type Permit, type Refusal } from './permit'
export { actionFor, type Content, type Reach } from './reach'
