// /admin/v1/export and /admin/v1/import: the control plane's configuration as one JSON document
// (keys' metadata, grants, quotas, revocations), for backups and copies between environments.

import { Hono, type Context } from 'hono'
import { describeRoute } from 'hono-openapi'
import { Answer } from '../../http/answer'
import { publicProblems } from '../../http/openapi'
import { MAX_IMPORT_BODY_BYTES, MAX_IMPORT_RECORDS, MAX_JSON_VALUES } from '../../limits'
import { jsonBody } from '../../middleware/json-body'
import type { AdminAppEnv, AdminRouteDeps } from '../../middleware/types'
import { validBody, validQuery } from '../../middleware/validate'
import { ConfigDocument, ExportQuery, ImportAnswer, ImportBody } from '../../control/admin-schemas'
import { exportConfiguration, importConfiguration } from '../../services/admin/config'
import { IDEMPOTENCY_HEADER } from './idempotency'
import { ADMIN_PROBLEMS, ADMIN_SECURITY, BAD_BODY, contextOf } from './shared'

const DOCUMENT = new Answer(ConfigDocument, 'The configuration')
const IMPORTED = new Answer(ImportAnswer, 'What was added, and what was left as it was')

export function configRoutes({ clock, adminAuthenticated, idempotent }: AdminRouteDeps) {
  const ctx = (c: Context<AdminAppEnv>) => contextOf(c, clock)
  return new Hono<AdminAppEnv>()
    .get(
      '/export',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminExport',
              summary:
                "The control plane's configuration as one document: keys, grants, quotas, revocations",
              description:
                "Keys' metadata (never a key; their secrets' SHA-256 only with `secrets=include`, which a restore needs), grants as WAYBILL_GRANTS holds them, quotas and revocations, each as this API shows it. What POST /admin/v1/import takes. Not usage, nor the audit trail, nor WAYBILL_API_KEYS and WAYBILL_GRANTS (the env's own).",
              security: ADMIN_SECURITY,
              responses: {
                200: DOCUMENT.response,
                ...publicProblems('invalid_request', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      validQuery(ExportQuery),
      async (c) => DOCUMENT.json(c, await exportConfiguration(ctx(c), c.req.valid('query'))),
    )
    .post(
      '/import',
      describeRoute(
        DOCS
          ? {
              operationId: 'adminImport',
              summary: 'Add what a configuration document holds and the control plane does not',
              description: `A document of GET /admin/v1/export (with \`secrets=include\`: a key needs its secrets' SHA-256), at most ${MAX_IMPORT_RECORDS} records of each kind. Each record is checked as its create is (a grant or a quota against the origins the data plane has now) and added with its id in one transaction; one whose id the control plane holds (a quota, also one whose subject and origin have one) is left as it is and counted as skipped. A key id WAYBILL_API_KEYS holds is a 409. Audited as one \`import\` event. Takes an \`Idempotency-Key\`.`,
              security: ADMIN_SECURITY,
              parameters: [IDEMPOTENCY_HEADER],
              responses: {
                200: IMPORTED.response,
                ...publicProblems(...BAD_BODY, 'not_found', 'conflict', ...ADMIN_PROBLEMS),
              },
            }
          : {},
      ),
      adminAuthenticated,
      idempotent,
      jsonBody({ bytes: MAX_IMPORT_BODY_BYTES, values: MAX_JSON_VALUES }),
      validBody(ImportBody),
      async (c) => IMPORTED.json(c, await importConfiguration(ctx(c), c.req.valid('json'))),
    )
}
