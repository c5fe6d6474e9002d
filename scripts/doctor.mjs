// `npm run doctor`: checks a production configuration of both Workers offline, before a deploy,
// and names each missing piece with what makes it (docs/deploying.md):
//
//   npm run doctor                                    # wrangler.jsonc and wrangler.admin.jsonc, --env production
//   npm run doctor -- --secrets secrets.json --admin-secrets admin-secrets.json
//   npm run doctor -- --dir examples/production      # the documented example
//
// - config: each file against wrangler's own schema (node_modules/wrangler/config-schema.json),
//   with the environment asked for;
// - bindings: the data plane's D1 database (a real id), quota counters and their Durable Object
//   migration; the admin plane's same database, the counters by "script_name" and the service
//   binding to the data plane's DataPlane entrypoint, both naming the data plane's Worker;
// - migrations: both read one folder, numbered in order, ending at the schema /readyz expects;
// - vars: each Worker's vars read by its own configuration code (src/config/), as the deployed
//   Worker would read them, every secret they name listed in "secrets.required";
// - secrets: every required secret among those set (`npx wrangler secret list --env production
//   --format json`, saved to a file: the doctor itself never goes online);
// - build: `wrangler deploy --dry-run` of both Workers (skipped with --no-build).
//
// Exit code 0 when nothing is missing, 1 otherwise; --json prints the report as one JSON object.

import { execFileSync } from 'node:child_process'
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { Validator } from '@cfworker/json-schema'
import { build } from 'esbuild'
import ts from 'typescript'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/** What the placeholder database id of wrangler.jsonc looks like, and the demo's zeros. */
const PLACEHOLDER_ID = /^(?:REPLACE|0{8}-0{4}-4000-8000-0{12})/

/** Keys an environment does not inherit from the top level (wrangler's own list, those we use). */
const NOT_INHERITED = [
  'vars',
  'd1_databases',
  'durable_objects',
  'services',
  'queues',
  'analytics_engine_datasets',
  'ratelimits',
  'secrets',
]

/** How each secret is made and set: the first pattern that matches its name. */
const SECRET_COMMANDS = [
  [
    /^WAYBILL_TOKEN_SECRETS$/,
    () => 'npm run token-secret | npx wrangler secret put WAYBILL_TOKEN_SECRETS --env production',
  ],
  [
    /^WAYBILL_API_KEYS$/,
    () =>
      'npm run hash-key -- <id>, then npx wrangler secret put WAYBILL_API_KEYS --env production (the JSON array of entries)',
  ],
  [
    /^WAYBILL_ADMIN_TOKENS$/,
    () =>
      'npm run admin -- token <id>, then npx wrangler secret put WAYBILL_ADMIN_TOKENS -c wrangler.admin.jsonc --env production (the JSON array of entries)',
  ],
  [
    /^WAYBILL_JWT_HS256_SECRET$/,
    () =>
      'openssl rand -base64 48 | npx wrangler secret put WAYBILL_JWT_HS256_SECRET --env production',
  ],
  [
    /^WAYBILL_WEBHOOK_SECRET$/,
    () =>
      'echo "whsec_$(openssl rand -base64 32)" | npx wrangler secret put WAYBILL_WEBHOOK_SECRET --env production',
  ],
  [
    /_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN)$/,
    (name) =>
      `npx wrangler secret put ${name} --env production (the S3 credentials of the origin's IAM user or role)`,
  ],
  [
    /./,
    (name) =>
      `npx wrangler secret put ${name} --env production < key.pem (a CloudFront private key: openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out key.pem; its public key goes in the distribution's key group)`,
  ],
]

/** The command that makes and sets secret `name`. */
export function secretCommand(name) {
  const [, command] = SECRET_COMMANDS.find(([pattern]) => pattern.test(name))
  return command(name)
}

/** A wrangler config file (JSON with comments and trailing commas), as wrangler reads it. */
function readConfig(path) {
  const { config, error } = ts.parseConfigFileTextToJson(path, readFileSync(path, 'utf8'))
  if (error !== undefined) {
    throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'))
  }
  return config
}

/** The configuration of environment `env`: its own keys over the top level's inherited ones. */
function resolveEnv(config, env) {
  const own = config.env?.[env]
  if (own === undefined) return undefined
  const inherited = Object.fromEntries(
    Object.entries(config).filter(([key]) => key !== 'env' && !NOT_INHERITED.includes(key)),
  )
  return { ...inherited, name: `${config.name}-${env}`, ...own }
}

let validator
/** Problems with `config` by wrangler's JSON schema, as `path: message`. */
function schemaProblems(config) {
  validator ??= new Validator(
    JSON.parse(readFileSync(join(ROOT, 'node_modules', 'wrangler', 'config-schema.json'), 'utf8')),
    '7',
    false,
  )
  const { errors } = validator.validate(config)
  // The leaf errors say what is wrong; the rest repeat them up the tree.
  return errors
    .filter((error) => error.keyword !== 'properties' && error.keyword !== '$ref')
    .filter((error) => error.keyword !== 'allOf')
    .map(
      (error) => `${error.instanceLocation.replace(/^#\/?/, '') || '(top level)'}: ${error.error}`,
    )
}

let loaders
/**
 * The Workers' own configuration code (src/config/), bundled for Node once per run: the data
 * plane's `loadConfig` and the admin plane's `loadAdminConfig`.
 */
async function configLoaders() {
  if (loaders !== undefined) return loaders
  const dir = join(ROOT, '.tmp', 'doctor')
  mkdirSync(dir, { recursive: true })
  const outfile = join(dir, 'config.mjs')
  await build({
    stdin: {
      contents:
        "export { loadConfig } from './src/config'\nexport { loadAdminConfig } from './src/config/admin'\n",
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile,
    logLevel: 'error',
    // The Worker's build constants and package aliases; esbuild's option takes package names only
    // (the relative ones are hono's own modules, which the configuration code does not import).
    define: readConfig(join(ROOT, 'wrangler.jsonc')).define,
    alias: Object.fromEntries(
      Object.entries(readConfig(join(ROOT, 'wrangler.jsonc')).alias).filter(
        ([name]) => !name.startsWith('.'),
      ),
    ),
    plugins: [
      {
        // The signing core's WebAssembly, which the Worker imports as a module.
        name: 'wasm-module',
        setup(b) {
          b.onLoad({ filter: /\.wasm$/ }, (args) => ({
            contents: `import { readFileSync } from 'node:fs'\nexport default new WebAssembly.Module(readFileSync(${JSON.stringify(args.path)}))`,
            loader: 'js',
          }))
        },
      },
    ],
  })
  loaders = await import(`${pathToFileURL(outfile)}?${Date.now()}`)
  return loaders
}

/** A binding the configuration code takes for one: any method it calls exists. */
const BINDING = new Proxy({}, { get: (_, name) => (name === 'then' ? undefined : () => BINDING) })

/** The env a Worker of `config` gets, without its secrets: vars as they are, bindings as stubs. */
function envOf(config) {
  const bindings = [
    ...(config.d1_databases ?? []).map((d) => d.binding),
    ...(config.durable_objects?.bindings ?? []).map((d) => d.name),
    ...(config.services ?? []).map((s) => s.binding),
    ...(config.queues?.producers ?? []).map((q) => q.binding),
    ...(config.analytics_engine_datasets ?? []).map((a) => a.binding),
    ...(config.ratelimits ?? []).map((r) => r.name),
  ]
  return { ...config.vars, ...Object.fromEntries(bindings.map((name) => [name, BINDING])) }
}

/** The names a `wrangler secret list --format json` file holds (or a plain array of names). */
function secretNames(path) {
  const list = JSON.parse(readFileSync(path, 'utf8'))
  if (!Array.isArray(list)) throw new Error(`${path} must be a JSON array of secrets`)
  return new Set(list.map((entry) => (typeof entry === 'string' ? entry : entry.name)))
}

const SECRET_NAME = /^[A-Z][A-Z0-9_]*$/

/**
 * A value of the shape secret `name` takes, standing in for it: the doctor never sees a secret,
 * but an origin is only made (and the grants on it judged) once its secrets read well.
 */
function standIn(name) {
  if (/_ACCESS_KEY_ID$/.test(name)) return 'AKIAIOSFODNN7EXAMPLE'
  if (/_SECRET_ACCESS_KEY$/.test(name)) return 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
  if (/_SESSION_TOKEN$/.test(name)) return randomBytes(96).toString('base64')
  if (name === 'WAYBILL_TOKEN_SECRETS') {
    return JSON.stringify([{ id: 'doctor', secret: randomBytes(32).toString('base64url') }])
  }
  if (name === 'WAYBILL_API_KEYS' || name === 'WAYBILL_ADMIN_TOKENS') return '[]'
  if (name === 'WAYBILL_JWT_HS256_SECRET') return randomBytes(48).toString('base64')
  if (name === 'WAYBILL_WEBHOOK_SECRET') return `whsec_${randomBytes(32).toString('base64')}`
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  })
}

/**
 * The problems of one Worker's vars, read by its configuration code (`load`): the secrets they
 * name (not a problem: checked against "secrets.required" and what is set) apart from everything
 * else, which is read again with the secrets standing in (an origin without them is not made, and
 * the grants on it are not judged).
 */
function varsProblems(load, env, vars) {
  const named = new Set()
  const secretOf = (error) => {
    const variable = error.path.split('.')[0]
    return SECRET_NAME.test(variable) && !(variable in vars) ? variable : undefined
  }
  const first = load(env)
  for (const error of first.ok ? [] : first.errors) {
    const secret = secretOf(error)
    if (secret !== undefined) named.add(secret)
  }
  const stood = Object.fromEntries([...named].map((name) => [name, standIn(name)]))
  const again = load({ ...env, ...stood })
  const problems = (again.ok ? [] : again.errors)
    .filter((error) => secretOf(error) === undefined)
    .map((error) => `${error.path}: ${error.message}`)
  return { named, problems }
}

/** `wrangler deploy --dry-run` of one Worker: its gzip size, or why it failed. */
function dryRun(configPath, env, outdir) {
  rmSync(outdir, { recursive: true, force: true })
  try {
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
        'deploy',
        '--dry-run',
        '--outdir',
        outdir,
        '-c',
        configPath,
        '--env',
        env,
      ],
      {
        cwd: dirname(configPath),
        env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`
    const reason = /✘ \[ERROR\] (.*)/.exec(output)?.[1] ?? output.trim().split('\n').at(-1)
    return { problem: `wrangler deploy --dry-run failed: ${reason}` }
  }
  const files = readdirSync(outdir).filter((name) => /\.(js|mjs|wasm)$/.test(name))
  const bytes = Buffer.concat(files.map((name) => readFileSync(join(outdir, name))))
  return { gzipKiB: Math.round((gzipSync(bytes).length / 1024) * 10) / 10 }
}

/**
 * Checks the production configuration of both Workers. Answers each check's problems (empty: it
 * holds), the secrets each Worker needs with whether they are set (null: not known) and how to
 * make each, and the bundles' sizes when built.
 *
 * @example
 * const report = await doctor({ dir: 'examples/production', build: false })
 * report.ok // true
 */
export async function doctor({
  dir = ROOT,
  env = 'production',
  data = 'wrangler.jsonc',
  admin = 'wrangler.admin.jsonc',
  secrets,
  adminSecrets,
  build: dryBuild = true,
} = {}) {
  const checks = { config: [], bindings: [], migrations: [], vars: [], secrets: [], build: [] }
  const planes = { data: { file: resolve(dir, data) }, admin: { file: resolve(dir, admin) } }
  for (const [name, plane] of Object.entries(planes)) {
    const label = relative(process.cwd(), plane.file) || plane.file
    if (!existsSync(plane.file)) {
      checks.config.push(`${label}: no such file`)
      continue
    }
    let raw
    try {
      raw = readConfig(plane.file)
    } catch (error) {
      checks.config.push(`${label}: not JSON with comments (${error.message})`)
      continue
    }
    for (const problem of schemaProblems(raw)) checks.config.push(`${label}: ${problem}`)
    plane.config = resolveEnv(raw, env)
    plane.label = label
    if (plane.config === undefined) {
      checks.config.push(`${label}: has no "env.${env}": the deployment the demo never touches`)
    }
    plane.secretsFile = name === 'data' ? secrets : adminSecrets
  }
  const { data: d, admin: a } = planes
  if (d.config === undefined || a.config === undefined) return report(checks, planes)

  // Bindings: the data plane's, then the admin plane's, which must name the data plane's.
  const at = (plane, what) => `${plane.label} env.${env}: ${what}`
  const database = (plane) => plane.config.d1_databases?.find((db) => db.binding === 'WAYBILL_DB')
  for (const plane of [d, a]) {
    const db = database(plane)
    if (db === undefined) checks.bindings.push(at(plane, 'has no D1 binding WAYBILL_DB'))
    else if (PLACEHOLDER_ID.test(db.database_id ?? '')) {
      checks.bindings.push(
        at(
          plane,
          `WAYBILL_DB's database_id is a placeholder: npx wrangler d1 create ${db.database_name ?? 'waybill'} prints the id`,
        ),
      )
    }
  }
  if (database(d) && database(a) && database(d).database_id !== database(a).database_id) {
    checks.bindings.push(at(a, "WAYBILL_DB is another database than the data plane's"))
  }
  const quotas = (plane) =>
    plane.config.durable_objects?.bindings?.find((b) => b.name === 'WAYBILL_QUOTAS')
  if (quotas(d)?.class_name !== 'QuotaCounter') {
    checks.bindings.push(
      at(d, 'has no Durable Object binding WAYBILL_QUOTAS of class QuotaCounter'),
    )
  }
  const classes = (d.config.migrations ?? []).flatMap((m) => [
    ...(m.new_sqlite_classes ?? []),
    ...(m.new_classes ?? []),
  ])
  if (!classes.includes('QuotaCounter')) {
    checks.bindings.push(at(d, 'no "migrations" entry creates the class QuotaCounter'))
  }
  if (quotas(a)?.class_name !== 'QuotaCounter' || quotas(a)?.script_name !== d.config.name) {
    checks.bindings.push(
      at(
        a,
        `WAYBILL_QUOTAS must be class QuotaCounter with "script_name": "${d.config.name}" (the data plane's Worker)`,
      ),
    )
  }
  const service = a.config.services?.find((s) => s.binding === 'WAYBILL_DATA_PLANE')
  if (service?.service !== d.config.name || service?.entrypoint !== 'DataPlane') {
    checks.bindings.push(
      at(
        a,
        `WAYBILL_DATA_PLANE must be a service binding to "${d.config.name}" (the data plane's Worker), entrypoint "DataPlane"`,
      ),
    )
  }
  if (a.config.name === d.config.name) {
    checks.bindings.push(at(a, "has the data plane's name: the admin plane is a Worker of its own"))
  }
  // A queue is made before the deploy that binds it: listed with the secrets.
  for (const plane of [d, a]) {
    plane.queues = (plane.config.queues?.producers ?? []).map((queue) => queue.queue)
  }

  // Migrations: one folder, in order, ending where /readyz expects.
  const folders = [d, a].map((plane) => {
    const db = database(plane)
    return db && resolve(dirname(plane.file), db.migrations_dir ?? 'migrations')
  })
  if (folders[0] && folders[1] && folders[0] !== folders[1]) {
    checks.migrations.push(at(a, "WAYBILL_DB's migrations_dir is not the data plane's"))
  }
  if (folders[0]) {
    const files = existsSync(folders[0])
      ? readdirSync(folders[0])
          .filter((name) => name.endsWith('.sql'))
          .sort()
      : []
    const latest = /LATEST_MIGRATION = '([^']+)'/.exec(
      readFileSync(join(ROOT, 'src', 'control', 'readiness.ts'), 'utf8'),
    )[1]
    if (files.length === 0) checks.migrations.push(at(d, `no migrations in ${folders[0]}`))
    else if (files.at(-1) !== latest) {
      checks.migrations.push(
        at(
          d,
          `the migrations end at ${files.at(-1)}, but this code expects ${latest} (/readyz would be 503)`,
        ),
      )
    }
    files.forEach((name, i) => {
      if (!name.startsWith(String(i + 1).padStart(4, '0'))) {
        checks.migrations.push(at(d, `${name} is out of order (migration ${i + 1} expected)`))
      }
    })
  }

  // Vars, read by the Workers' own configuration code; the secrets they name.
  const { loadConfig, loadAdminConfig } = await configLoaders()
  for (const [plane, load] of [
    [d, loadConfig],
    [a, loadAdminConfig],
  ]) {
    const vars = plane.config.vars ?? {}
    const { named, problems } = varsProblems(load, envOf(plane.config), vars)
    checks.vars.push(...problems.map((problem) => at(plane, problem)))
    for (const origin of Object.values(vars.WAYBILL_ORIGINS ?? {})) {
      if (/\/\/(?:127\.|localhost|\[::1\])/.test(origin?.endpoint ?? '')) {
        checks.vars.push(
          at(
            plane,
            `an origin's endpoint is on this machine (${origin.endpoint}): the demo's, not production's`,
          ),
        )
      }
    }
    const required = new Set(plane.config.secrets?.required ?? [])
    // What every deployment of each Worker needs, whatever its vars say.
    for (const name of plane === d ? ['WAYBILL_TOKEN_SECRETS'] : []) named.add(name)
    if (plane === a && vars.WAYBILL_AUTH?.access?.admins === undefined)
      named.add('WAYBILL_ADMIN_TOKENS')
    for (const name of named) {
      if (!required.has(name)) {
        checks.vars.push(
          at(plane, `reads the secret ${name}, which "secrets.required" does not list`),
        )
      }
    }
    plane.required = [...new Set([...required, ...named])].sort()
    plane.set = plane.secretsFile === undefined ? null : secretNames(plane.secretsFile)
    for (const name of plane.set === null ? [] : plane.required) {
      if (!plane.set.has(name)) {
        checks.secrets.push(
          `${plane.config.name}: the secret ${name} is not set: ${secretCommand(name)}`,
        )
      }
    }
  }

  if (dryBuild) {
    for (const plane of [d, a]) {
      const built = dryRun(plane.file, env, join(ROOT, '.tmp', 'doctor', plane.config.name))
      if (built.problem !== undefined) checks.build.push(at(plane, built.problem))
      else plane.gzipKiB = built.gzipKiB
    }
  }
  return report(checks, planes)
}

function report(checks, planes) {
  const workers = Object.fromEntries(
    Object.entries(planes)
      .filter(([, plane]) => plane.config !== undefined)
      .map(([name, plane]) => [
        name,
        {
          name: plane.config.name,
          secrets: (plane.required ?? []).map((secret) => ({
            name: secret,
            set: plane.set === null || plane.set === undefined ? null : plane.set.has(secret),
            command: secretCommand(secret),
          })),
          queues: plane.queues ?? [],
          ...(plane.gzipKiB !== undefined && { gzipKiB: plane.gzipKiB }),
        },
      ]),
  )
  return { ok: Object.values(checks).every((problems) => problems.length === 0), checks, workers }
}

/** The report as lines for a terminal. */
export function reportLines(result, built) {
  const lines = []
  for (const [check, problems] of Object.entries(result.checks)) {
    if (check === 'build' && !built) lines.push('-  build: skipped (--no-build)')
    else lines.push(`${problems.length === 0 ? 'ok' : '✗ '} ${check}`)
    for (const problem of problems) lines.push(`     ${problem}`)
  }
  for (const worker of Object.values(result.workers)) {
    lines.push(
      '',
      `${worker.name}${worker.gzipKiB === undefined ? '' : ` (${worker.gzipKiB} KiB gzip)`}: secrets`,
    )
    for (const secret of worker.secrets) {
      const state = secret.set === null ? 'not checked (--secrets)' : secret.set ? 'set' : 'MISSING'
      lines.push(`  ${secret.name}: ${state}`, `     ${secret.command}`)
    }
    for (const queue of worker.queues) {
      lines.push(`  the queue ${queue}: npx wrangler queues create ${queue} (before the deploy)`)
    }
  }
  lines.push(
    '',
    result.ok ? 'Ready to deploy: docs/deploying.md.' : 'Not ready: fix what is named above.',
  )
  return lines
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: o } = parseArgs({
    options: {
      dir: { type: 'string' },
      env: { type: 'string' },
      secrets: { type: 'string' },
      'admin-secrets': { type: 'string' },
      'no-build': { type: 'boolean' },
      json: { type: 'boolean' },
    },
  })
  const built = o['no-build'] !== true
  const result = await doctor({
    dir: o.dir,
    env: o.env,
    secrets: o.secrets,
    adminSecrets: o['admin-secrets'],
    build: built,
  })
  if (o.json) console.log(JSON.stringify(result))
  else for (const line of reportLines(result, built)) console.log(line)
  process.exitCode = result.ok ? 0 : 1
}
