export { loadConfig } from './load'
export type { ApiKey, Config, ConfigResult, Origin, S3Origin } from './types'
