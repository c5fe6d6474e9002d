// Before and after in one run: `npm run bench -- --baseline <git ref>` checks the ref out beside
// this one (a git worktree under .tmp/, sharing node_modules), and run.mjs measures both side by
// side: the signing core in workerd, POST /v1/sign through wrangler dev, the deploy bundle, and a
// fresh isolate's first request (bench/bundle.mjs).

import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, symlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()

/** A worktree of `ref` at .tmp/bench/baseline, with this checkout's node_modules. */
export function checkoutBaseline(ref) {
  const dir = join(ROOT, '.tmp', 'bench', 'baseline')
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`)
  if (existsSync(dir)) git('worktree', 'remove', '--force', dir)
  git('worktree', 'prune')
  mkdirSync(dirname(dir), { recursive: true })
  git('worktree', 'add', '--detach', dir, commit)
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return { dir, commit: commit.slice(0, 7) }
}
