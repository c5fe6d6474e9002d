// Runs in Node before the suite: starts installing Schemathesis into .tools/ if missing
// (scripts/schemathesis.mjs; in the background, while the projects before this one run), starts
// the Workers it tests (./target.ts), and hands them to the test, which waits for the install.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { installInBackground } from '../../scripts/schemathesis.mjs'
import { startFuzzTarget } from './target'

export interface SchemathesisContext {
  /** The pinned `st` command, once `installed` says so (waitForInstall). */
  st: string
  /** The file the background install writes its outcome to. */
  installed: string
  baseUrl: string
  /** The admin Worker's origin. */
  adminUrl: string
  apiKey: string
  adminToken: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    schemathesis: SchemathesisContext
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'waybill-schemathesis-install-'))
  const installed = join(dir, 'outcome')
  const install = installInBackground(installed)
  try {
    const target = await startFuzzTarget()
    const { baseUrl, adminUrl, apiKey, adminToken } = target
    project.provide('schemathesis', {
      st: install.st,
      installed,
      baseUrl,
      adminUrl,
      apiKey,
      adminToken,
    })
    return async () => {
      install.stop()
      await target.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  } catch (error) {
    install.stop()
    throw error
  }
}
