import { createAdminApp } from './app'

// The admin Worker (wrangler.admin.jsonc). Its quota counters are the data plane's Durable
// Objects, bound by "script_name": it exports no class of its own.
export default createAdminApp()
