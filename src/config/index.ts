export { loadConfig } from './load'
export type * from './types'
