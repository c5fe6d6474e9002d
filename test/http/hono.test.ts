// The data plane's router (src/http/hono.ts): the routes prepared at build time
// (src/http/prepared-routes.ts) match every request as hono's RegExpRouter, compiling the same
// routes at run time, does: the same handlers, in the same order, with the same parameters.

import { Hono as HonoWithDefaults } from 'hono'
import type { Result, Router } from 'hono/router'
import { buildInitParams, PreparedRegExpRouter, RegExpRouter } from 'hono/router/reg-exp-router'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { Hono, servingApp } from '../../src/http/hono'
import { preparedRoutes } from '../../src/http/prepared-routes'
import { dataPlanePaths } from '../../src/openapi'

const routes = createApp({ router: new RegExpRouter() }).routes

/** Both routers with the app's routes, each handler named by its method and path. */
function routers(): Router<string>[] {
  const compiled = new RegExpRouter<string>()
  const prepared = new PreparedRegExpRouter<string>(
    ...(preparedRoutes() as unknown as ConstructorParameters<typeof PreparedRegExpRouter<string>>),
  )
  for (const router of [compiled, prepared]) {
    for (const [i, { method, path }] of routes.entries())
      router.add(method, path, `${i} ${method} ${path}`)
  }
  return [compiled, prepared]
}

/** A match as what a request sees: each handler with its parameters' values. */
function resolved([handlers, stash]: Result<string>): [string, Record<string, string>][] {
  return handlers.map(([handler, params]) => [
    handler,
    Object.fromEntries(
      Object.entries(params).map(([name, at]) => [
        name,
        stash === undefined ? String(at) : String(stash[at as unknown as number]),
      ]),
    ),
  ])
}

/** A request path for each route: parameters filled in, wildcards given two segments. */
function concretePaths(): string[] {
  const paths = new Set<string>()
  for (const { path } of routes) {
    const filled = path
      .replace(/:[A-Za-z_]+\{[^}]*\}/g, 'gallery/2026/a.b.jpg')
      .replace(/:[A-Za-z_]+/g, 'media')
      .replace(/\*/g, 'x/y.txt')
    paths.add(filled)
    paths.add(`${filled}/`)
    paths.add(`${filled}/more`)
    paths.add(filled.replace(/\/[^/]*$/, ''))
  }
  for (const extra of [
    '/',
    '/nope',
    '//healthz',
    '/healthz/',
    '/v1',
    '/v1/',
    '/o',
    '/o/',
    '/o/media',
    '/o/media/',
    '/o/media/a%2Fb.txt',
    '/o/media/dir/',
    '/l/abc.def',
    '/l/',
    '/v1/redirect/photos/a%20b/c.jpg',
    '/admin/v1/keys',
  ]) {
    paths.add(extra)
  }
  return [...paths]
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']

describe('the prepared routes', () => {
  it("are what the build prepares from the app's paths today", () => {
    expect(dataPlanePaths()).toEqual([...new Set(routes.map(({ path }) => path))])
    expect(preparedRoutes()).toEqual(buildInitParams({ paths: dataPlanePaths() }))
  })

  it('take every route the app adds', () => {
    // A path they do not hold would throw as it is added (see below).
    const [, prepared] = routers()
    expect(prepared!.name).toBe('PreparedRegExpRouter')
  })

  it('match every request as RegExpRouter does', () => {
    const [compiled, prepared] = routers()
    const reached = new Set<string>()
    for (const method of METHODS) {
      for (const path of concretePaths()) {
        const expected = resolved(compiled!.match(method, path))
        expect(resolved(prepared!.match(method, path)), `${method} ${path}`).toEqual(expected)
        for (const [handler] of expected) reached.add(handler)
      }
    }
    // The requests reach every route, not only the middleware every request goes through.
    expect([...reached].sort()).toEqual(
      routes.map(({ method, path }, i) => `${i} ${method} ${path}`).sort(),
    )
  })

  it('refuse a path the build did not prepare', () => {
    expect(() => servingApp().get('/not-prepared', (c) => c.text('no'))).toThrow(
      /\/not-prepared is not registered/,
    )
  })

  it('are what the serving app matches with', async () => {
    const app = createApp()
    expect(app.router.name).toBe('PreparedRegExpRouter')
    expect((await app.request('/healthz')).status).not.toBe(404)
  })
})

describe('a route group', () => {
  it('is matched through the app that mounts it', async () => {
    const group = new Hono().get('/hello', (c) => c.text('hi'))
    expect(() => group.router.match('GET', '/hello')).toThrow(/matched by the app that mounts it/)
    const app = new HonoWithDefaults().route('/group', group)
    expect(await (await app.request('/group/hello')).text()).toBe('hi')
  })
})
