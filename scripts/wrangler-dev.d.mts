import type { ChildProcess } from 'node:child_process'

export declare function applyLocalMigrations(options: { persistTo: string; root?: string }): void

export declare function spawnWranglerDev(options: {
  port: number
  envFile: string
  quiet?: boolean
  inspectorPort?: number
  root?: string
  persistTo?: string
  /** `wrangler.jsonc` (the data plane, the default) or `wrangler.admin.jsonc`. */
  config?: string
  registry?: string
  logsToStderr?: boolean
}): ChildProcess

export declare function reportUnexpectedExit(
  child: ChildProcess,
  name: string,
  stopping: () => boolean,
): void
