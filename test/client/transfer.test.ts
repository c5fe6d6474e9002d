// The XMLHttpRequest path of transfers (what browsers use, for upload progress), with a fake
// XMLHttpRequest: workerd has none. The real one runs in test/browser/client.test.ts.

import { afterEach, describe, expect, it, vi } from 'vitest'
import { createClient } from '../../client/src/index.ts'
import { fakeWaybill, WAYBILL } from '../helpers/fake-waybill.ts'

type Listener = (event: { loaded: number; total: number; lengthComputable: boolean }) => void

/** Answers each send() with `answer`, after upload progress events in quarters. */
function fakeXhr(answer: { status: number; etag?: string; text?: string } | 'error') {
  const sent: Array<{ method: string; url: string; headers: Record<string, string> }> = []
  class FakeXMLHttpRequest {
    status = 0
    responseText = ''
    private listeners = new Map<string, Listener[]>()
    private request = { method: '', url: '', headers: {} as Record<string, string> }
    readonly upload: Record<string, unknown> = {
      addEventListener: (type: string, listener: Listener) => this.on(`upload:${type}`, listener),
    }
    private on(type: string, listener: Listener) {
      this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener])
    }
    // The client sets `on<type>` handlers (the properties of XMLHttpRequest and its upload).
    onload: Listener | null = null
    onerror: Listener | null = null
    onabort: Listener | null = null
    onprogress: Listener | null = null
    private emit(type: string, loaded = 0, total = 0) {
      const event = { loaded, total, lengthComputable: total > 0 }
      for (const listener of this.listeners.get(type) ?? []) listener(event)
      const [target, name]: [Record<string, unknown>, string] = type.startsWith('upload:')
        ? [this.upload, type.slice('upload:'.length)]
        : [this as unknown as Record<string, unknown>, type]
      const handler = target[`on${name}`]
      if (typeof handler === 'function') (handler as Listener)(event)
    }
    addEventListener(type: string, listener: Listener) {
      this.on(type, listener)
    }
    open(method: string, url: string) {
      this.request.method = method
      this.request.url = url
    }
    setRequestHeader(name: string, value: string) {
      this.request.headers[name] = value
    }
    getResponseHeader(name: string) {
      return name.toLowerCase() === 'etag' && answer !== 'error' ? (answer.etag ?? null) : null
    }
    abort() {
      this.emit('abort')
    }
    send(body: Blob) {
      sent.push(this.request)
      setTimeout(() => {
        for (const quarter of [1, 2, 3, 4]) {
          this.emit('upload:progress', (body.size * quarter) / 4, body.size)
        }
        if (answer === 'error') return this.emit('error')
        this.status = answer.status
        this.responseText = answer.text ?? ''
        this.emit('load')
      }, 1)
    }
  }
  return { FakeXMLHttpRequest, sent }
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('transfers with XMLHttpRequest', () => {
  it('reports upload progress and sends the signed headers except Content-Length', async () => {
    const { FakeXMLHttpRequest, sent } = fakeXhr({ status: 200, etag: '"x"' })
    vi.stubGlobal('XMLHttpRequest', FakeXMLHttpRequest)
    const fake = fakeWaybill()
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch })
    // The fake XHR stores nothing, so the completion check finds what the test puts there.
    fake.hooks.api = (request) => {
      if (request.url.pathname === '/v1/uploads/complete') {
        fake.objects.set('k', { bytes: new Uint8Array(400), contentType: 'image/png', etag: '"x"' })
      }
      return undefined
    }
    const loaded: number[] = []
    await client.upload(new File([new Uint8Array(400)], 'a.png', { type: 'image/png' }), {
      origin: 'o',
      key: 'k',
      onProgress: (p) => loaded.push(p.loaded),
    })
    expect(loaded).toEqual([0, 100, 200, 300, 400, 400])
    expect(sent).toHaveLength(1)
    expect(sent[0]!.method).toBe('PUT')
    expect(sent[0]!.headers).toEqual({
      'content-type': 'image/png',
      'if-none-match': '*',
      'x-amz-checksum-sha256': 'ehLlYTYzhenf7qsyY2hzHAMO1LN05/WJesgZFZ0ohMU=',
    })
  })

  it('reports a network failure as retryable, naming what could not be sent', async () => {
    const { FakeXMLHttpRequest, sent } = fakeXhr('error')
    vi.stubGlobal('XMLHttpRequest', FakeXMLHttpRequest)
    const fake = fakeWaybill()
    const client = createClient({ baseUrl: WAYBILL, fetch: fake.fetch, retryBaseDelayMs: 1 })
    await expect(
      client.upload(new Blob([new Uint8Array(10)]), { origin: 'o', key: 'k', retries: 2 }),
    ).rejects.toMatchObject({
      code: 'network_error',
      message: expect.stringContaining('The bucket could not be reached for the PUT') as string,
    })
    expect(sent).toHaveLength(3)
  })
})
