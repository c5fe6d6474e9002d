import type { ChildProcess } from 'node:child_process'

export declare function spawnWranglerDev(options: {
  port: number
  envFile: string
  quiet?: boolean
  inspectorPort?: number
  root?: string
}): ChildProcess
