// Runs in Node before the schemathesis project: installs Schemathesis into .tools/ if missing
// (scripts/schemathesis.mjs), starts the Workers it tests (./target.ts), and hands them to the test.

import type { TestProject } from 'vitest/node'
import { ensureSchemathesis } from '../../scripts/schemathesis.mjs'
import { startFuzzTarget } from './target'

export interface SchemathesisContext {
  /** The pinned `st` command. */
  st: string
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
  const st = ensureSchemathesis()
  const target = await startFuzzTarget()
  const { baseUrl, adminUrl, apiKey, adminToken } = target
  project.provide('schemathesis', { st, baseUrl, adminUrl, apiKey, adminToken })
  return target.stop
}
