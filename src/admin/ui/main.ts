// The admin UI (public-admin/index.html, bundled into public-admin/admin.js by
// scripts/docs-assets.mjs): keys (made and shown once, rotated, revoked), grants, revocations,
// quotas with their use, usage, the audit trail and explain, through the admin API of the origin
// it is served from. Every call is typed from the admin plane's document (../openapi.d.ts). No
// framework, no inline script or style (the page's policy allows none), and nothing it is given
// is ever parsed as HTML: text goes in as text.
//
// The admin token is kept in this tab's sessionStorage only; behind Cloudflare Access, the Access
// cookie authenticates without one.

import type { operations } from '../openapi'

type Operation = keyof operations
type BodyOf<Op extends Operation> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer B } }
}
  ? B
  : never
type AnswerOf<Op extends Operation> = operations[Op]['responses'] extends {
  200: { content: { 'application/json': infer A } }
}
  ? A
  : operations[Op]['responses'] extends { 201: { content: { 'application/json': infer A } } }
    ? A
    : undefined

const TOKEN = 'waybill-admin-token'
const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T
const status = () => $('status')

/** A refusal of the admin API: its status and problem, said once. */
class Refused extends Error {}

function say(text: string, error = false): void {
  status().textContent = text
  status().classList.toggle('error', error)
}

/** One call of the admin API, as operation `op` of its document. */
async function api<Op extends Operation>(
  _op: Op,
  method: string,
  path: string,
  body?: BodyOf<Op>,
): Promise<AnswerOf<Op>> {
  const token = sessionStorage.getItem(TOKEN)
  const headers: Record<string, string> = {}
  if (token !== null) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  // Each submission its own key: a retry of it by the network is answered once.
  if (method === 'POST') headers['idempotency-key'] = crypto.randomUUID()
  const response = await fetch(`/admin/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (response.status === 204) return undefined as AnswerOf<Op>
  const answer = (await response.json()) as AnswerOf<Op> & {
    detail?: string
    errors?: { path: string; message: string }[]
  }
  if (response.status === 401 && token === null) {
    throw new Refused('Sign in with an admin token (or through Cloudflare Access).')
  }
  if (!response.ok) {
    const fields = (answer.errors ?? [])
      .map((error) => `${error.path}: ${error.message}`)
      .filter((field) => !(answer.detail ?? '').includes(field))
    throw new Refused([`${response.status}: ${answer.detail}`, ...fields].join('; '))
  }
  return answer
}

/** Runs `work`, saying what became of it. */
async function attempt(work: () => Promise<unknown>, done?: string): Promise<void> {
  try {
    await work()
    if (done !== undefined) say(done)
  } catch (error) {
    say(error instanceof Error ? error.message : String(error), true)
  }
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (text !== undefined) node.textContent = text
  if (className !== undefined) node.className = className
  return node
}

function button(text: string, action: () => Promise<unknown>, done?: string): HTMLButtonElement {
  const node = element('button', text)
  node.type = 'button'
  node.addEventListener('click', () => void attempt(action, done))
  return node
}

type Cell = string | number | null | undefined | Node
type Column<T> = [string, (row: T) => Cell]

/** Fills `table` with a header and a row per record. */
function fill<T>(table: HTMLTableElement, columns: Column<T>[], rows: readonly T[]): void {
  table.replaceChildren()
  const head = table.createTHead().insertRow()
  for (const [name] of columns) head.append(element('th', name))
  const body = table.createTBody()
  if (rows.length === 0) {
    const cell = body.insertRow().insertCell()
    cell.colSpan = columns.length
    cell.textContent = 'None.'
  }
  for (const row of rows) {
    const tr = body.insertRow()
    for (const [, value] of columns) {
      const cell = tr.insertCell()
      const content = value(row)
      if (content instanceof Node) cell.append(content)
      else cell.textContent = content === null || content === undefined ? '' : String(content)
    }
  }
}

const formOf = (id: string) => $<HTMLFormElement>(id)
const field = (form: HTMLFormElement, name: string) =>
  (form.elements.namedItem(name) as HTMLInputElement).value.trim()
const optionalNumber = (form: HTMLFormElement, name: string) => {
  const value = field(form, name)
  return value === '' ? undefined : Number(value)
}

/** A duration from now (`30d`, `12h`, `90m`, seconds), as a time. */
function inFuture(text: string): string | undefined {
  const match = /^(\d+)([smhdw]?)$/.exec(text)
  if (match === null) return undefined
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }[match[2] ?? ''] ?? 1
  return new Date(Date.now() + Number(match[1]) * unit * 1000).toISOString()
}

function onSubmit(id: string, work: (form: HTMLFormElement) => Promise<unknown>, done?: string) {
  const form = formOf(id)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void attempt(() => work(form), done)
  })
}

// ---- keys -------------------------------------------------------------------------------------

async function loadKeys(): Promise<void> {
  const { keys } = await api('adminListKeys', 'GET', '/keys?limit=100')
  fill(
    $<HTMLTableElement>('key-list'),
    [
      ['id', (key) => key.id],
      ['label', (key) => key.label],
      ['secret', (key) => key.secrets.map((secret) => `${secret.prefix}…`).join(', ')],
      ['expires', (key) => key.expiresAt ?? 'never'],
      ['revoked', (key) => key.revokedAt ?? ''],
      ['last used', (key) => key.lastUsedAt ?? ''],
      [
        '',
        (key) => {
          if (key.revokedAt !== null) return ''
          const actions = element('span')
          actions.append(
            button('Rotate', async () => {
              const rotated = await api(
                'adminRotateKey',
                'POST',
                `/keys/${encodeURIComponent(key.id)}/rotate`,
                {},
              )
              showKey(rotated.id, rotated.key)
              await loadKeys()
            }),
            button(
              'Revoke',
              async () => {
                await api('adminCreateRevocation', 'POST', '/revocations', {
                  kind: 'key',
                  key: key.id,
                })
                await Promise.all([loadKeys(), loadRevocations()])
              },
              `Key ${key.id} revoked.`,
            ),
          )
          return actions
        },
      ],
    ],
    keys,
  )
}

function showKey(id: string, key: string): void {
  $('key-shown-id').textContent = id
  $('key-shown-key').textContent = key
  $('key-shown').hidden = false
}

// ---- grants, revocations, quotas ----------------------------------------------------------------

async function loadGrants(): Promise<void> {
  const { grants } = await api('adminListGrants', 'GET', '/grants?limit=100')
  fill(
    $<HTMLTableElement>('grant-list'),
    [
      ['id', (grant) => grant.id],
      ['to', (grant) => String(grant.grant.to)],
      ['origin', (grant) => String(grant.grant.origin)],
      ['prefix', (grant) => String(grant.grant.prefix)],
      ['actions', (grant) => (grant.grant.actions as string[]).join(', ')],
      [
        '',
        (grant) =>
          button('Delete', async () => {
            await api('adminDeleteGrant', 'DELETE', `/grants/${grant.id}`)
            await loadGrants()
          }),
      ],
    ],
    grants,
  )
}

async function loadRevocations(): Promise<void> {
  const { revocations } = await api('adminListRevocations', 'GET', '/revocations?limit=100')
  fill(
    $<HTMLTableElement>('revocation-list'),
    [
      ['id', (r) => r.id],
      ['kind', (r) => r.kind],
      [
        'what',
        (r) => r.key ?? r.link ?? [r.issuedBefore, r.origin, r.principal].filter(Boolean).join(' '),
      ],
      ['since', (r) => r.createdAt],
      [
        '',
        (r) =>
          button('Undo', async () => {
            await api('adminDeleteRevocation', 'DELETE', `/revocations/${r.id}`)
            await Promise.all([loadRevocations(), loadKeys()])
          }),
      ],
    ],
    revocations,
  )
}

async function loadQuotas(): Promise<void> {
  const { quotas } = await api('adminListQuotas', 'GET', '/quotas?limit=100')
  fill(
    $<HTMLTableElement>('quota-list'),
    [
      ['id', (q) => q.id],
      ['to', (q) => q.to],
      ['origin', (q) => q.origin],
      [
        'uploads',
        (q) => (q.maxObjects === null ? '' : `${q.use?.objects ?? '?'} of ${q.maxObjects}`),
      ],
      ['bytes', (q) => (q.maxBytes === null ? '' : `${q.use?.bytes ?? '?'} of ${q.maxBytes}`)],
      [
        'room left',
        (q) =>
          q.use === null
            ? ''
            : [q.use.remainingObjects, q.use.remainingBytes].filter((n) => n !== null).join(' / '),
      ],
      ['resets', (q) => q.use?.resetAt ?? ''],
      [
        '',
        (q) =>
          button('Delete', async () => {
            await api('adminDeleteQuota', 'DELETE', `/quotas/${q.id}`)
            await loadQuotas()
          }),
      ],
    ],
    quotas,
  )
}

// ---- usage, audit, explain ----------------------------------------------------------------------

async function loadTop(by: 'minted' | 'bytes' | 'completed' | 'refused'): Promise<void> {
  const { callers } = await api('adminGetTopUsage', 'GET', `/usage/top?by=${by}`)
  fill(
    $<HTMLTableElement>('usage-list'),
    [
      ['caller', (c) => c.principal],
      ['minted', (c) => c.minted],
      ['refused', (c) => c.refused],
      ['bytes signed', (c) => c.bytesReserved],
      ['bytes completed', (c) => c.bytesCompleted],
      ['links followed', (c) => c.linksFollowed],
    ],
    callers,
  )
}

async function loadAudit(filter: { key?: string; action?: string } = {}): Promise<void> {
  const query = new URLSearchParams({ limit: '50' })
  if (filter.key) query.set('key', filter.key)
  if (filter.action) query.set('action', filter.action)
  const { events } = await api('adminListAudit', 'GET', `/audit?${query}`)
  fill(
    $<HTMLTableElement>('audit-list'),
    [
      ['at', (e) => e.at],
      ['actor', (e) => e.actor],
      ['action', (e) => e.action],
      ['outcome', (e) => e.outcome],
      ['target', (e) => e.target],
      ['key', (e) => e.key],
      ['after', (e) => (e.after === null ? '' : element('code', JSON.stringify(e.after)))],
    ],
    events,
  )
}

async function explainNow(form: HTMLFormElement): Promise<void> {
  const action = field(form, 'action') as 'read' | 'write' | 'delete' | 'list'
  const length = optionalNumber(form, 'contentLength')
  const answer = await api('adminExplain', 'POST', '/explain', {
    caller: { key: field(form, 'key') },
    action,
    origin: field(form, 'origin'),
    key: field(form, 'object'),
    ...(length === undefined ? {} : { contentLength: length }),
  })
  const out = $('explain-answer')
  out.replaceChildren()
  out.append(
    element(
      'p',
      answer.allowed ? `Allowed (${answer.status})` : `Refused (${answer.status})`,
      answer.allowed ? 'allowed' : 'refused',
    ),
    element(
      'p',
      `Caller ${answer.caller.principal}${answer.caller.fallen ? ` (${answer.caller.fallen})` : ''}`,
    ),
  )
  if (answer.refusal !== null) {
    const rule = element(
      'p',
      `Refused by: ${answer.refusal.code} — ${answer.refusal.detail}`,
      'rule',
    )
    out.append(rule)
    for (const error of answer.refusal.errors)
      out.append(element('p', `${error.path}: ${error.message}`))
  }
  const permitting = answer.grants.find((grant) => grant.permits)
  if (permitting !== undefined) {
    out.append(
      element(
        'p',
        `Permitted by grant ${permitting.id ?? '(WAYBILL_GRANTS)'}: ${JSON.stringify(permitting.grant)}`,
      ),
    )
  }
  const grants = element('table')
  fill(
    grants,
    [
      ['grant', (g) => g.id ?? 'env'],
      ['via', (g) => g.via],
      ['alone', (g) => (g.permits ? 'permits' : `refuses: ${g.refusal?.detail ?? ''}`)],
    ],
    answer.grants,
  )
  out.append(element('h3', 'Grants that reach the caller'), grants)
  if (answer.quota !== null) {
    out.append(
      element(
        'p',
        `Quota ${answer.quota.id}: ${answer.quota.use?.objects ?? 0} uploads used of ${answer.quota.maxObjects ?? '∞'}`,
      ),
    )
  }
}

// ---- the page -----------------------------------------------------------------------------------

/** Everything, once the first answer says this admin may see it (one 401 until signed in). */
async function loadAll(): Promise<void> {
  await loadKeys()
  await Promise.all([loadGrants(), loadRevocations(), loadQuotas(), loadTop('minted'), loadAudit()])
}

function signedIn(): void {
  const token = sessionStorage.getItem(TOKEN)
  $('who').textContent = token === null ? '' : `signed in (${token.slice(0, 8)}…)`
  $('signout').hidden = token === null
  void attempt(loadAll)
}

formOf('signin').addEventListener('submit', (event) => {
  event.preventDefault()
  const form = event.currentTarget as HTMLFormElement
  sessionStorage.setItem(TOKEN, field(form, 'token'))
  form.reset()
  signedIn()
})
$('signout').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN)
  location.reload()
})
onSubmit(
  'key-create',
  async (form) => {
    const label = field(form, 'label')
    const expires = field(form, 'expires')
    const expiresAt = expires === '' ? undefined : inFuture(expires)
    if (expires !== '' && expiresAt === undefined)
      throw new Refused('Expires in: a duration such as 30d, 12h or 90m')
    const made = await api('adminCreateKey', 'POST', '/keys', {
      ...(label === '' ? {} : { label }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    })
    showKey(made.id, made.key)
    form.reset()
    await Promise.all([loadKeys(), loadAudit()])
  },
  'Key created.',
)
$('key-shown-done').addEventListener('click', () => {
  $('key-shown-key').textContent = ''
  $('key-shown').hidden = true
})
onSubmit(
  'grant-create',
  async (form) => {
    const actions = Array.from(
      form.querySelectorAll<HTMLInputElement>('input[name="actions"]:checked'),
      (box) => box.value as 'read' | 'write' | 'delete' | 'list',
    )
    const prefix = field(form, 'prefix')
    await api('adminCreateGrant', 'POST', '/grants', {
      to: field(form, 'to'),
      origin: field(form, 'origin'),
      actions,
      ...(prefix === '' ? {} : { prefix }),
    })
    await Promise.all([loadGrants(), loadAudit()])
  },
  'Granted.',
)
onSubmit(
  'quota-create',
  async (form) => {
    const maxObjects = optionalNumber(form, 'maxObjects')
    const maxBytes = optionalNumber(form, 'maxBytes')
    await api('adminCreateQuota', 'POST', '/quotas', {
      to: field(form, 'to'),
      origin: field(form, 'origin'),
      ...(maxObjects === undefined ? {} : { maxObjects }),
      ...(maxBytes === undefined ? {} : { maxBytes }),
      windowS: Number(field(form, 'windowS')),
    })
    await Promise.all([loadQuotas(), loadAudit()])
  },
  'Quota set.',
)
$('quota-refresh').addEventListener(
  'click',
  () => void attempt(loadQuotas, 'Quotas read from their counters.'),
)
onSubmit('usage-top', (form) => loadTop(field(form, 'by') as 'minted'))
onSubmit('audit-filter', (form) =>
  loadAudit({ key: field(form, 'key'), action: field(form, 'action') }),
)
onSubmit('explain-form', explainNow)

signedIn()
