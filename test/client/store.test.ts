// waybill-client/store against the fake waybill and bucket: the upload rules (their `accept`, and
// the check that refuses a file before any request, as waybill words its refusals), and the
// upload store (its snapshots, each file's percentage, isUploading, and a batch's outcomes).

import { describe, expect, it } from 'vitest'
import { createClient, type UploadRule } from '../../client/src/index.ts'
import { createUploadStore, uploadRules, withChecks } from '../../client/src/store.ts'
import { ANY_RULE, fakeWaybill, patternBytes, WAYBILL } from '../helpers/fake-waybill.ts'

const file = (size: number, name: string, type: string) =>
  new File([patternBytes(size)], name, { type, lastModified: 1_700_000_000_000 })

const IMAGES = ['image/png', 'image/jpeg']
const rule = (over: Partial<UploadRule>): UploadRule => ({ ...ANY_RULE, ...over })
/** Images up to 1000 bytes under users/alice/, named by the grant; any text under inbox. */
const RULES = [
  rule({
    prefix: 'users/alice/',
    uploadKey: 'users/alice/{uuid}-{filename}',
    contentTypes: ['image/*'],
    admittedTypes: IMAGES,
    maxContentLength: 1000,
  }),
  rule({ prefix: 'inbox', contentTypes: ['text/plain'], admittedTypes: ['text/plain'] }),
]

const setup = (rules: readonly UploadRule[] = RULES) => {
  const fake = fakeWaybill({ rules })
  const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch, storage: undefined })
  return { fake, client }
}

describe('uploadRules', () => {
  it("fetches the caller's rules on an origin, with an accept for a file input", async () => {
    const { fake, client } = setup()
    const rules = await uploadRules(client, 'photos')
    expect(fake.calls('/v1/uploads/rules').map((call) => call.url.search)).toEqual([
      '?origin=photos',
    ])
    expect(rules.rules).toEqual(RULES)
    expect(rules.accept).toBe('image/*,text/plain')
    expect(withChecks({ origin: 'o', rules: [...RULES, ANY_RULE] }).accept).toBe('')
  })

  it('refuses, as waybill would and naming the field, what no rule admits', () => {
    const { check } = withChecks({ origin: 'photos', rules: RULES })
    const png = file(10, 'a.png', 'image/png')
    expect(check(png, { key: 'users/alice/a.png' })).toBeUndefined()
    expect(check(png)).toBeUndefined() // by name: where the uploadKey puts it
    expect(check(file(10, 'a.txt', 'text/plain'), { key: 'inbox/a.txt' })).toBeUndefined()
    expect(check(file(10, 'a.txt', 'text/plain'), { key: 'inbox' })).toBeUndefined()

    const refusals = [
      [
        png,
        { key: 'users/bob/a.png' },
        'key',
        '"users/bob/a.png" is not covered by a grant to write',
      ],
      // Whole segments only: `inbox` does not cover `inboxes/`.
      [png, { key: 'inboxes/a.png' }, 'key', '"inboxes/a.png" is not covered by a grant to write'],
      [
        file(10, 'a.svg', 'image/svg+xml'),
        { key: 'users/alice/a.svg' },
        'contentType',
        'must be one of image/* for this caller',
      ],
      // Among every rule covering the key: a text file by name goes where images go.
      [file(10, 'a.html', ''), {}, 'contentType', 'must be one of image/* for this caller'],
      [
        file(1001, 'a.png', 'image/png'),
        { key: 'users/alice/a.png' },
        'contentLength',
        'must be at most 1000 bytes for this caller',
      ],
      [
        png,
        { key: 'users/alice/a.png', overwrite: true },
        'overwrite',
        'cannot be true for this caller: no grant covering the key allows replacing an existing object (overwrite)',
      ],
    ] as const
    for (const [sent, target, path, message] of refusals) {
      const refused = check(sent, target)
      expect(refused?.code, `${sent.name} ${JSON.stringify(target)}`).toBe('refused')
      expect(refused?.status).toBe(0)
      expect(refused?.message).toBe(`${path}: ${message}`)
      expect(refused?.errors).toEqual([{ path, message }])
    }
    // A type given for the upload is the one judged, parameters aside.
    expect(
      check(file(10, 'a.bin', ''), { key: 'inbox/a', contentType: 'Text/Plain; charset=utf-8' }),
    ).toBeUndefined()
  })

  it('says when no rule chooses a key for a file sent by name, or there is no rule at all', () => {
    const png = file(10, 'a.png', 'image/png')
    expect(withChecks({ origin: 'o', rules: [RULES[1]!] }).check(png)?.errors).toEqual([
      {
        path: 'filename',
        message:
          'no grant of this caller chooses upload keys on this origin (uploadKey); send "key"',
      },
    ])
    expect(withChecks({ origin: 'o', rules: [] }).check(png, { key: 'a.png' })?.code).toBe(
      'refused',
    )
  })
})

describe('createUploadStore', () => {
  it("uploads a batch, each file's state and percentage in snapshots, and resolves to the outcomes", async () => {
    const { fake, client } = setup()
    const rules = await uploadRules(client, 'photos')
    const keys: string[] = []
    const store = createUploadStore(client, {
      origin: 'photos',
      rules,
      // Called once per file: a key with a fresh UUID names one upload only.
      keyOf: (sent) => {
        const key = sent.type.startsWith('image/')
          ? `users/alice/${sent.name}`
          : `inbox/${sent.name}`
        keys.push(key)
        return key
      },
    })
    const snapshots = [store.getSnapshot()]
    store.subscribe(() => snapshots.push(store.getSnapshot()))
    const calls = fake.log.length
    const outcomes = await store.add([
      file(600, 'a.png', 'image/png'),
      file(2000, 'big.png', 'image/png'),
      file(300, 'notes.txt', 'text/plain'),
    ])
    expect(keys).toEqual(['users/alice/a.png', 'users/alice/big.png', 'inbox/notes.txt'])
    expect(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value.key : (o.reason as unknown))),
    ).toEqual([
      'users/alice/a.png',
      expect.objectContaining({
        code: 'refused',
        message: 'contentLength: must be at most 1000 bytes for this caller',
      }),
      'inbox/notes.txt',
    ])
    // Nothing for the refused file: a PUT, a check and a completion for each of the others.
    const sent = fake.log.slice(calls)
    expect(sent.some((request) => request.url.href.includes('big.png'))).toBe(false)
    expect(fake.calls('/v1/uploads').map((call) => call.body?.key)).toEqual([
      'users/alice/a.png',
      'inbox/notes.txt',
    ])

    const last = snapshots.at(-1)!
    expect(last).toBe(store.getSnapshot())
    expect(last.isUploading).toBe(false)
    expect(last.items.map((item) => [item.name, item.state, item.progress.percentage])).toEqual([
      ['a.png', 'done', 100],
      ['big.png', 'failed', 0],
      ['notes.txt', 'done', 100],
    ])
    expect(last.items[1]!.error?.code).toBe('refused')
    // Busy from the first snapshot after add() until the last file settled.
    expect(snapshots[0]!.isUploading).toBe(false)
    expect(snapshots[1]!.isUploading).toBe(true)
    // Each file's percentage only grows, in whole numbers.
    const shares = snapshots.flatMap((s) => s.items.filter((i) => i.name === 'a.png'))
    const percents = shares.map((item) => item.progress.percentage)
    expect(percents).toEqual([...percents].sort((a, b) => a - b))
    expect(percents.every(Number.isInteger)).toBe(true)

    store.clear()
    expect(store.getSnapshot().items).toEqual([])
  })

  it('sends files added with no rules as they are, each asking for its own upload', async () => {
    const { fake, client } = setup()
    const store = createUploadStore(client, { origin: 'photos', keyOf: (sent) => `x/${sent.name}` })
    const outcomes = await store.add([file(5, 'a.bin', ''), file(6, 'b.bin', '')])
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled'])
    expect(fake.calls('/v1/uploads')).toHaveLength(2)
    expect(fake.calls('/v1/uploads/rules')).toHaveLength(0)
  })
})
