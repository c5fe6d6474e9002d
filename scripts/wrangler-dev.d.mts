import type { ChildProcess } from 'node:child_process'

export declare function applyLocalMigrations(options: { persistTo: string; root?: string }): void

export interface WranglerDevOptions {
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
}

export declare function spawnWranglerDev(options: WranglerDevOptions): ChildProcess

export declare function reportUnexpectedExit(
  child: ChildProcess,
  name: string,
  stopping: () => boolean,
): void

export declare function stopWranglerDev(child: ChildProcess): Promise<void>

export declare function waitForHealthz(
  url: string,
  child: ChildProcess,
  timeoutMs: number,
): Promise<void>

export declare function startWranglerDev(
  options: WranglerDevOptions & { name: string; timeoutMs?: number },
): Promise<{ url: string; stop: () => Promise<void> }>
