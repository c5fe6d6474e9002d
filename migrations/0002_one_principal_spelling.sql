-- One spelling of callers (issue #31): an API key is the caller `apiKey:<id>` everywhere, as grants
-- and quotas name it, where usage and revocations by caller said `api-key:<id>`. Idempotent: run
-- again (`wrangler d1 execute WAYBILL_DB --remote --file migrations/0002_one_principal_spelling.sql`)
-- to fold in what Workers still running the old code wrote during a deploy.

-- Usage rows under the old spelling, added to the new one's (the same caller, day and origin).
INSERT INTO usage (day, principal, origin, minted, refused, bytes_reserved, bytes_completed, links_followed)
SELECT day, 'apiKey:' || substr(principal, 9), origin, minted, refused, bytes_reserved, bytes_completed, links_followed
FROM usage
WHERE principal LIKE 'api-key:%'
ON CONFLICT (principal, day, origin) DO UPDATE SET
  minted = minted + excluded.minted,
  refused = refused + excluded.refused,
  bytes_reserved = bytes_reserved + excluded.bytes_reserved,
  bytes_completed = bytes_completed + excluded.bytes_completed,
  links_followed = links_followed + excluded.links_followed;
DELETE FROM usage WHERE principal LIKE 'api-key:%';

-- Link revocations by caller. (A link carries a hash of its issuer as it always did: revocations
-- in either spelling find the links issued before and after this change.)
UPDATE revocations SET principal = 'apiKey:' || substr(principal, 9) WHERE principal LIKE 'api-key:%';

-- Every isolate drops its caches (its link revocations among them) at its next epoch reading.
UPDATE control_epoch SET epoch = epoch + 1 WHERE id = 1;
