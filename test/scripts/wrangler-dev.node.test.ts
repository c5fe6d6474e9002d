// How the project's scripts wait for and stop a `wrangler dev` (scripts/wrangler-dev.mjs), with
// small Node children in its place: npm start, the browser and the Schemathesis setups all rely on
// these to fail at once, and say why, when a Worker does not come up.

import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { stopWranglerDev, waitForHealthz } from '../../scripts/wrangler-dev.mjs'

const children: ChildProcess[] = []
const servers: Server[] = []

/** A Node child running `code`, as a stand-in for wrangler dev. */
function child(code: string): ChildProcess {
  const process_ = spawn(process.execPath, ['-e', code], { stdio: 'ignore' })
  children.push(process_)
  return process_
}

/** A server answering every request with `status` and `body`; its /healthz URL. */
async function answering(status: number, body: string): Promise<string> {
  const server = createServer((_request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain' })
    response.end(body)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`
}

/** A port nothing listens on (a server's, closed). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

const exited = (process_: ChildProcess) =>
  new Promise((resolve) => {
    if (process_.exitCode !== null || process_.signalCode !== null) resolve(undefined)
    else process_.once('exit', resolve)
  })

afterEach(() => {
  for (const process_ of children.splice(0)) process_.kill('SIGKILL')
  for (const server of servers.splice(0)) server.close()
})

describe('waitForHealthz', () => {
  it('resolves once the Worker answers 200', async () => {
    const url = await answering(200, 'ok')
    await expect(waitForHealthz(url, child('setTimeout(() => {}, 60000)'), 5_000)).resolves.toBe(
      undefined,
    )
  })

  it('fails at once, with the answer, when the Worker answers anything else', async () => {
    const url = await answering(503, 'WAYBILL_ORIGINS: must be JSON')
    await expect(waitForHealthz(url, child('setTimeout(() => {}, 60000)'), 30_000)).rejects.toThrow(
      `${url} answered 503: WAYBILL_ORIGINS: must be JSON`,
    )
  })

  it('fails when wrangler dev exits before answering, with its exit code', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/healthz`
    const dying = child('process.exit(3)')
    await expect(waitForHealthz(url, dying, 30_000)).rejects.toThrow(
      `wrangler dev exited (3) before ${url} answered`,
    )
  })

  it('gives up after its time, saying what it last saw', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/healthz`
    await expect(waitForHealthz(url, child('setTimeout(() => {}, 60000)'), 600)).rejects.toThrow(
      /did not answer on .* within 0\.6 s \(.+\)/,
    )
  })
})

describe('stopWranglerDev', () => {
  it('ends a child with SIGTERM', async () => {
    const process_ = child('setTimeout(() => {}, 60000)')
    await stopWranglerDev(process_)
    expect(process_.signalCode).toBe('SIGTERM')
  })

  it('kills a child that ignores SIGTERM', { timeout: 15_000 }, async () => {
    const process_ = spawn(
      process.execPath,
      ['-e', "process.on('SIGTERM', () => {}); process.send('ready'); setTimeout(() => {}, 60000)"],
      { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] },
    )
    children.push(process_)
    // Its handler is in place once it says so (a fixed pause was a guess on a loaded machine).
    await once(process_, 'message')
    process_.disconnect()
    await stopWranglerDev(process_)
    expect(process_.signalCode).toBe('SIGKILL')
  })

  it('resolves at once for a child that has gone', async () => {
    const process_ = child('process.exit(0)')
    await exited(process_)
    await expect(stopWranglerDev(process_)).resolves.toBe(undefined)
  })
})
