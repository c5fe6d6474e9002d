// What hashing by default costs a page (issue #20, part E), measured in Chromium: the client's own
// code (client/src, bundled by esbuild) against a waybill and a bucket answered by Playwright on
// the page's origin, so only the page's work is timed. Run on demand, not part of npm test:
//
//   node bench/browser-hash.mjs [--size-mib 100] [--runs 3]
//
// 1. Throughput: SHA-256 of a file read from disk (a File from a file input), 5 MiB part after 5
//    MiB part, each `sha256Base64(file.slice(…))` as the engine's part hasher calls it (Web Crypto
//    over the part's ArrayBuffer), in MB/s (10^6 bytes per second); and apart, what reading the
//    parts (Blob.arrayBuffer) and digesting them each take, with the main thread watched
//    meanwhile.
// 2. The first byte of a multipart upload of that file: from `startUpload()` to the first part's
//    XMLHttpRequest send, with checksums (the default: the first 64 MiB are hashed before the
//    upload starts, so their URLs come with it) and without; the difference is what hashing adds.
// 3. While the upload with checksums runs to its end: the longest main-thread task
//    (PerformanceObserver "longtask", 50 ms and more) and the longest gap between animation
//    frames; the peak of the page's JS heap (CDP Performance.getMetrics) and of the renderer
//    process's resident memory (Linux /proc), above what they were before.

import { readdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'
import { chromium } from 'playwright-core'
import { ensureChromium } from '../scripts/chromium.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
// localhost: a secure context, where Web Crypto's subtle API exists (no server listens: Playwright
// answers every request).
const ORIGIN = 'http://localhost:59999'
const MIB = 1024 * 1024

const { values } = parseArgs({
  options: {
    'size-mib': { type: 'string', default: '100' },
    runs: { type: 'string', default: '3' },
  },
})
const sizeMib = Number(values['size-mib'])
const runs = Number(values.runs)

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]

/** The page's script: the client and its hash and plan, as the engine uses them. */
async function bundle() {
  const output = await build({
    stdin: {
      contents: `
        import { createClient } from './client/src/index.ts'
        import { sha256Base64 } from './client/src/hash.ts'
        import { partRange, planFor } from './client/src/plan.ts'
        window.bench = { createClient, sha256Base64, partRange, planFor }
      `,
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
  })
  return output.outputFiles[0].text
}

/** The renderer processes of a browser (Linux): their pids. */
function rendererPids(browserPid) {
  const parent = new Map()
  const renderers = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('--type=renderer')) {
        renderers.push(Number(name))
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return renderers.filter((pid) => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 1) if (p === browserPid) return true
    return false
  })
}

const rssBytes = (pid) => {
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return Number(kib ?? 0) * 1024
  } catch {
    return 0
  }
}

/** waybill and the bucket, answered on the page's own origin (no CORS, no network). */
async function fakeServer(page, script) {
  let parts = 0
  const json = (route, body) =>
    route.fulfill({
      status: 200,
      headers: { 'content-type': 'application/json', date: new Date().toUTCString() },
      body: JSON.stringify(body),
    })
  const expiresAt = () => new Date(Date.now() + 900_000).toISOString()
  const partUrls = (numbers) =>
    numbers.map((n) => ({ partNumber: n, url: `${ORIGIN}/bucket/part?partNumber=${n}` }))
  await page.route(`${ORIGIN}/**`, async (route) => {
    const request = route.request()
    const url = new URL(request.url())
    if (url.pathname === '/') {
      return route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: '<!doctype html><input type="file" id="file"><script type="module" src="/bench.js"></script>',
      })
    }
    if (url.pathname === '/bench.js') {
      return route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/javascript' },
        body: script,
      })
    }
    if (url.pathname === '/bucket/part') {
      parts++
      return route.fulfill({
        status: 200,
        headers: { etag: `"${url.searchParams.get('partNumber')}"` },
      })
    }
    const body = request.postDataJSON()
    if (url.pathname === '/v1/uploads') {
      const partSize = body.partSize
      const partCount = Math.max(1, Math.ceil(body.contentLength / partSize))
      const first = Math.min(body.partChecksums?.length ?? partCount, 100)
      return json(route, {
        mode: 'multipart',
        method: 'MULTIPART',
        key: body.key,
        uploadId: `u${Date.now()}.${'t'.repeat(22)}`,
        partSize,
        partCount,
        parts: partUrls(Array.from({ length: first }, (_, i) => i + 1)),
        expiresAt: expiresAt(),
      })
    }
    if (url.pathname === '/v1/uploads/multipart/parts') {
      return json(route, { parts: partUrls(body.partNumbers), expiresAt: expiresAt() })
    }
    if (url.pathname === '/v1/uploads/multipart/complete') {
      return json(route, {
        origin: body.origin,
        key: body.key,
        size: sizeMib * MIB,
        contentType: 'application/octet-stream',
        etag: `"x-${body.parts?.length}"`,
      })
    }
    return route.fulfill({ status: 404 })
  })
  return { parts: () => parts }
}

async function main() {
  const executablePath = ensureChromium({ log: () => {} })
  const tmp = mkdtempSync(join(tmpdir(), 'waybill-hash-bench-'))
  const path = join(tmp, 'file.bin')
  // A file on disk, as a page gets one from a file input: not all in memory.
  const chunk = Buffer.alloc(MIB)
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 2654435761) >>> 24
  writeFileSync(path, Buffer.concat(Array.from({ length: sizeMib }, () => chunk)))

  // A server, for its process id (the renderer's memory is read from /proc).
  const server = await chromium.launchServer({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  })
  const browser = await chromium.connect(server.wsEndpoint())
  browserVersion = browser.version()
  const script = await bundle()
  const results = {
    sizeMib,
    runs,
    mbPerSecond: [],
    readMbPerSecond: [],
    digestMbPerSecond: [],
    hashingLongestTaskMs: 0,
    hashingLongestFrameGapMs: 0,
    firstByteMs: { checksum: [], none: [] },
  }
  try {
    const page = await browser.newPage()
    await fakeServer(page, script)
    await page.goto(`${ORIGIN}/`)
    await page.waitForFunction(() => window.bench !== undefined)
    await page.setInputFiles('#file', path)

    // 1. Throughput, part after part, as the engine's hasher reads them; what the page's main
    // thread does meanwhile (tasks of 50 ms or more, gaps between animation frames).
    for (let run = 0; run < runs; run++) {
      const measured = await page.evaluate(async () => {
        const file = document.getElementById('file').files[0]
        const { sha256Base64, planFor, partRange } = window.bench
        const plan = planFor(file.size)
        const longest = { task: 0, frameGap: 0 }
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries())
            longest.task = Math.max(longest.task, entry.duration)
        })
        observer.observe({ type: 'longtask' })
        let frames = true
        let last = performance.now()
        const frame = (now) => {
          longest.frameGap = Math.max(longest.frameGap, now - last)
          last = now
          if (frames) requestAnimationFrame(frame)
        }
        requestAnimationFrame(frame)
        // Reading the part from disk and hashing it, apart, then as the engine does both.
        let readMs = 0
        let digestMs = 0
        for (let n = 1; n <= plan.partCount; n++) {
          const t0 = performance.now()
          const bytes = await file.slice(...partRange(plan, n)).arrayBuffer()
          const t1 = performance.now()
          await crypto.subtle.digest('SHA-256', bytes)
          digestMs += performance.now() - t1
          readMs += t1 - t0
        }
        const started = performance.now()
        for (let n = 1; n <= plan.partCount; n++)
          await sha256Base64(file.slice(...partRange(plan, n)))
        const ms = performance.now() - started
        frames = false
        await new Promise((resolve) => setTimeout(resolve, 50))
        observer.disconnect()
        return { ms, readMs, digestMs, longest }
      })
      const mb = (sizeMib * MIB) / 1e6
      results.mbPerSecond.push(mb / (measured.ms / 1000))
      results.readMbPerSecond.push(mb / (measured.readMs / 1000))
      results.digestMbPerSecond.push(mb / (measured.digestMs / 1000))
      results.hashingLongestTaskMs = Math.max(results.hashingLongestTaskMs, measured.longest.task)
      results.hashingLongestFrameGapMs = Math.max(
        results.hashingLongestFrameGapMs,
        measured.longest.frameGap,
      )
    }

    // 2. The first byte of an upload, with and without checksums.
    const upload = (checksum, watch) =>
      page.evaluate(
        async ({ checksum, watch }) => {
          const file = document.getElementById('file').files[0]
          let firstSend
          const send = XMLHttpRequest.prototype.send
          XMLHttpRequest.prototype.send = function (body) {
            firstSend ??= performance.now()
            return send.call(this, body)
          }
          const longest = { task: 0, frameGap: 0 }
          let observer
          let frames = true
          if (watch) {
            observer = new PerformanceObserver((list) => {
              for (const entry of list.getEntries()) {
                longest.task = Math.max(longest.task, entry.duration)
              }
            })
            observer.observe({ type: 'longtask' })
            let last = performance.now()
            const frame = (now) => {
              longest.frameGap = Math.max(longest.frameGap, now - last)
              last = now
              if (frames) requestAnimationFrame(frame)
            }
            requestAnimationFrame(frame)
          }
          const client = window.bench.createClient({ baseUrl: location.origin, storage: undefined })
          const started = performance.now()
          const task = client.startUpload(file, {
            origin: 'demo',
            key: `bench/${Math.random()}.bin`,
            checksum,
          })
          await task.done
          const ended = performance.now()
          frames = false
          observer?.disconnect()
          XMLHttpRequest.prototype.send = send
          return { firstByteMs: firstSend - started, totalMs: ended - started, longest }
        },
        { checksum, watch },
      )
    for (let run = 0; run < runs; run++) {
      results.firstByteMs.none.push((await upload(false, false)).firstByteMs)
      results.firstByteMs.checksum.push((await upload(true, false)).firstByteMs)
    }

    // 3. One upload with checksums, watched: tasks, frames, memory.
    const session = await page.context().newCDPSession(page)
    await session.send('Performance.enable')
    const heap = async () =>
      (await session.send('Performance.getMetrics')).metrics.find(
        (m) => m.name === 'JSHeapUsedSize',
      ).value
    const renderers = rendererPids(server.process().pid ?? -1)
    const rss = () => renderers.reduce((sum, pid) => sum + rssBytes(pid), 0)
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)))
    const before = { heap: await heap(), rss: rss() }
    const peak = { ...before }
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        peak.heap = Math.max(peak.heap, await heap())
        peak.rss = Math.max(peak.rss, rss())
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    })()
    const watched = await upload(true, true)
    sampling = false
    await sampler
    results.watched = {
      totalMs: watched.totalMs,
      longestTaskMs: watched.longest.task,
      longestFrameGapMs: watched.longest.frameGap,
      heapPeakMiB: (peak.heap - before.heap) / MIB,
      rendererRssPeakMiB: renderers.length === 0 ? undefined : (peak.rss - before.rss) / MIB,
    }
  } finally {
    await browser.close()
    await server.close()
    rmSync(tmp, { recursive: true, force: true })
  }

  const firstByte = {
    none: median(results.firstByteMs.none),
    checksum: median(results.firstByteMs.checksum),
  }
  const round = (n, digits = 0) => (n === undefined ? 'n/a' : n.toFixed(digits))
  console.log(`Chromium ${browserVersion}, ${sizeMib} MiB file from disk, median of ${runs} runs

| measure | value |
|---|---|
| SHA-256 of 5 MiB parts one after another, as the engine (read + Web Crypto digest) | ${round(median(results.mbPerSecond))} MB/s (runs: ${results.mbPerSecond.map((v) => round(v)).join(', ')}) |
| of which reading the parts from disk (Blob.arrayBuffer) | ${round(median(results.readMbPerSecond))} MB/s |
| of which the digest (crypto.subtle.digest) | ${round(median(results.digestMbPerSecond))} MB/s |
| longest main-thread task while hashing (longtask ≥ 50 ms) | ${results.hashingLongestTaskMs === 0 ? 'none' : `${round(results.hashingLongestTaskMs)} ms`} |
| longest gap between animation frames while hashing | ${round(results.hashingLongestFrameGapMs)} ms |
| first part sent, checksums off | ${round(firstByte.none)} ms |
| first part sent, checksums on (default) | ${round(firstByte.checksum)} ms |
| added before the first byte | ${round(firstByte.checksum - firstByte.none)} ms |
| whole upload with checksums (Playwright answering each part) | ${round(results.watched.totalMs)} ms |
| longest main-thread task while it ran (longtask ≥ 50 ms) | ${results.watched.longestTaskMs === 0 ? 'none' : `${round(results.watched.longestTaskMs)} ms`} |
| longest gap between animation frames while it ran | ${round(results.watched.longestFrameGapMs)} ms |
| JS heap, peak above before | ${round(results.watched.heapPeakMiB, 1)} MiB |
| renderer resident memory, peak above before | ${round(results.watched.rendererRssPeakMiB, 1)} MiB |`)
}

let browserVersion = ''
await main()
