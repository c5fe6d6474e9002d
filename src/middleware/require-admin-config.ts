// The admin Worker's configuration on the context (src/config/admin.ts), apart from the data
// plane's middleware so that the data plane's bundle carries none of the admin plane's code.

import { createMiddleware } from 'hono/factory'
import { loadAdminConfig } from '../config/admin'
import { configInvalid } from './require-config'
import type { AdminAppEnv } from './types'

/** The admin Worker's `requireConfig`: its own configuration (src/config/admin.ts), once per isolate. */
export function requireAdminConfig() {
  return createMiddleware<AdminAppEnv>(async function requireAdminConfig(c, next) {
    const result = loadAdminConfig(c.env ?? {})
    if (!result.ok) throw configInvalid(result.errors)
    c.set('config', result.config)
    await next()
  })
}
