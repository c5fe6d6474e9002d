import { describe, expect, it } from 'vitest'
import { signingTime } from '../../src/core/window'

const at = (iso: string) => new Date(iso)

describe('signingTime', () => {
  it('signs at the start of the window and lives window + expiresIn from there', () => {
    const time = signingTime(at('2026-11-23T10:17:42.250Z'), 900, 3600)
    expect(time.signedAt.toISOString()).toBe('2026-11-23T10:00:00.000Z')
    expect(time.lifetime).toBe(4500)
    expect(time.expiresAt.toISOString()).toBe('2026-11-23T11:15:00.000Z')
    expect(time.window).toBe(3600)
  })

  it('is the same for every instant of a window and moves with the next one', () => {
    const first = signingTime(at('2026-11-23T10:00:00Z'), 600, 3600)
    const last = signingTime(at('2026-11-23T10:59:59.999Z'), 600, 3600)
    const next = signingTime(at('2026-11-23T11:00:00Z'), 600, 3600)
    expect(last).toEqual(first)
    expect(next.signedAt.getTime() - first.signedAt.getTime()).toBe(3_600_000)
  })

  it('keeps at least expiresIn of life from now, and at most window + expiresIn', () => {
    for (let offset = 0; offset < 3600; offset += 97) {
      const now = new Date(Date.UTC(2026, 10, 23, 10) + offset * 1000 + 321)
      const time = signingTime(now, 900, 3600)
      const life = (time.expiresAt.getTime() - now.getTime()) / 1000
      expect(life).toBeGreaterThanOrEqual(900)
      expect(life).toBeLessThanOrEqual(900 + 3600)
      expect(time.signedAt.getTime()).toBeLessThanOrEqual(now.getTime())
    }
  })

  it('without a window signs at now', () => {
    const now = at('2026-11-23T10:17:42.250Z')
    const time = signingTime(now, 900, 0)
    expect(time.signedAt).toBe(now)
    expect(time.lifetime).toBe(900)
    expect(time.expiresAt.toISOString()).toBe('2026-11-23T10:32:42.000Z')
  })

  it('shortens a window that would outlive seven days or the given limit', () => {
    expect(signingTime(at('2026-11-23T10:17:00Z'), 604_000, 3600).window).toBe(800)
    expect(signingTime(at('2026-11-23T10:17:00Z'), 604_800, 3600).window).toBe(0)
    const capped = signingTime(at('2026-11-23T10:17:00Z'), 900, 3600, 1800)
    expect(capped.window).toBe(900)
    expect(capped.lifetime).toBe(1800)
  })
})
