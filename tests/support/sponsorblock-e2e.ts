import { expect } from 'bun:test'
import type { Frame, Page } from 'playwright-core'
import type { MusicServices } from './music-services.ts'

// SponsorBlock in the player end to end (tests/e2e/videos-sponsorblock*.test.ts): what the
// playing <video> (the page's own, or the IFrame stand-in's clip) was made to seek, sampled
// every 10 ms in the browser so a skip's starting point is known to within a few hundredths.

export type Seek = { from: number; to: number; src: string }

/** Starts recording the seeks of the <video> matched by `selector` in `target` (once per document). */
export async function recordSeeks(target: Page | Frame, selector: string) {
  await target.evaluate((sel) => {
    const w = window as unknown as { seeks?: Seek[] }
    if (w.seeks) return
    const v = document.querySelector(sel) as HTMLVideoElement
    const seeks: Seek[] = []
    w.seeks = seeks
    let last = v.currentTime
    setInterval(() => {
      if (!v.seeking) last = v.currentTime
    }, 10)
    v.addEventListener('seeking', () => seeks.push({ from: last, to: v.currentTime, src: v.currentSrc }))
  }, selector)
}

export const seeks = (target: Page | Frame) => target.evaluate(() => (window as unknown as { seeks?: Seek[] }).seeks ?? [])

/** The seek that skipped to `end` (the segment's end) in the clip of `videoId`. */
export async function skipTo(target: Page | Frame, videoId: string, end: number): Promise<Seek | undefined> {
  return (await seeks(target)).find((s) => s.src.includes(`/${videoId}.webm`) && Math.abs(s.to - end) < 0.3)
}

/** The stand-in was asked (by hash prefix), and never with a plain video id. */
export function expectOnlyHashPrefixes(sb: MusicServices, videoIds: string[]) {
  expect(sb.sbRequests.length).toBeGreaterThan(0)
  for (const asked of sb.sbRequests) {
    expect(asked).toMatch(/^\/sb\/api\/skipSegments\/[0-9a-f]{4}\?/)
    for (const id of videoIds) expect(decodeURIComponent(asked)).not.toContain(id)
  }
}
