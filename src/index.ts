import { createApp } from './app'

export default createApp()

export type { WaybillApi } from './app'
