import { beforeAll, describe, expect, test } from 'bun:test'
import type { Frame } from 'playwright-core'
import { axeFindings } from '../support/axe.ts'
import { screenshot } from '../support/e2e.ts'
import { expectOnlyHashPrefixes, recordSeeks, seeks, skipTo } from '../support/sponsorblock-e2e.ts'
import { api, fake, noPageErrors, page, perf, setUpVideoArea, shot, sponsorBlock, subscribeAndWait, until, type VideoJson } from '../support/videos-e2e.ts'

// SponsorBlock in the YouTube player (the IFrame Player API stand-in, production-like: no direct
// media) on the video page, and the Account page's SponsorBlock section. The segments come from
// the SponsorBlock stand-in (tests/support/music-services.ts), which records what it is asked.
// The HTML5 player: videos-sponsorblock-html5.test.ts.

setUpVideoArea({ directMedia: false, context: { bypassCSP: true } })

/** The embed frame playing `id`. */
async function embed(id: string): Promise<Frame> {
  return until(`embed frame playing ${id}`, async () => {
    for (const frame of page.frames()) {
      if (!frame.url().includes('/embed/')) continue
      const src = await frame.evaluate(() => (document.getElementById('v') as HTMLVideoElement).src).catch(() => '')
      if (src.includes(`/media/${id}.webm`)) return frame
    }
    return null
  })
}
const embedTime = (frame: Frame) => frame.evaluate(() => (document.getElementById('v') as HTMLVideoElement).currentTime)

/** Presses Tab from the top of the page until the focus is on the button named `name`. */
async function tabTo(name: string, max = 80) {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab')
    const focused = await page.evaluate(() => {
      const el = document.activeElement
      return el?.tagName === 'BUTTON' ? (el.getAttribute('aria-label') ?? el.textContent ?? '').trim() : ''
    })
    if (focused === name) return
  }
  throw new Error(`"${name}" was not reached with Tab`)
}

describe('SponsorBlock in the YouTube player', () => {
  let videos: VideoJson[] = []
  beforeAll(async () => {
    await subscribeAndWait('@tiny-kitchen', fake.channel('@tiny-kitchen').uploads.length)
    videos = (await api<{ videos: VideoJson[] }>('/api/youtube/videos/list?per_page=12')).videos
    sponsorBlock.segments.set(videos[0]!.id, [{ category: 'sponsor', segment: [6, 12] }])
  }, 120_000)

  test(
    'a skip segment is skipped within half a second of its start; the notice is heard and Go back works by keyboard, once per play-through',
    async () => {
      const video = videos[0]!
      await page.goto(`/youtube/video/${video.id}`)
      await page.getByRole('heading', { name: video.title, level: 1 }).waitFor()
      const frame = await embed(video.id)
      await recordSeeks(frame, '#v')
      const notice = page.getByRole('status').filter({ hasText: 'Skipped a sponsor segment (0:06)' })
      await notice.waitFor({ timeout: 30_000 })
      const skip = await until('the skip to the end of the segment', () => skipTo(frame, video.id, 12))
      perf.iframeSkipAfterStartSeconds = Number((skip.from - 6).toFixed(3))
      expect(skip.from).toBeGreaterThanOrEqual(5.85)
      expect(skip.from).toBeLessThan(6.5)
      // a polite live region that was in the page before the words came
      expect(await notice.getAttribute('aria-live')).toBe('polite')
      await shot('sponsorblock-notice-video-page')
      const findings = await axeFindings(page, 'video page with the SponsorBlock notice')
      expect(findings).toEqual([])

      // Go back, by keyboard: back to the segment's start, and it plays this time
      await tabTo('Go back')
      await page.keyboard.press('Enter')
      await until('the seek back to the start', async () => (await seeks(frame)).some((s) => Math.abs(s.to - 6) < 0.3))
      const back = page.getByRole('status').filter({ hasText: 'Went back to a sponsor segment at 0:06: it plays this time.' })
      await back.waitFor()
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Went back to a sponsor segment at 0:06: it plays this time.')
      await until('playing inside the segment', async () => (await embedTime(frame)) > 9, 20_000)
      expect(await embedTime(frame)).toBeLessThan(11.9)
      expect((await seeks(frame)).filter((s) => Math.abs(s.to - 12) < 0.3)).toHaveLength(1)

      expectOnlyHashPrefixes(
        sponsorBlock,
        videos.map((v) => v.id),
      )
    },
    { timeout: 120_000 },
  )

  test('the Account page SponsorBlock section saves, says so, and has no serious axe finding', async () => {
    await page.goto('/account?tab=sponsorblock')
    const group = page.getByRole('radiogroup', { name: 'Sponsor: action' })
    await group.waitFor()
    expect(await group.getByRole('radio', { name: 'Skip' }).isChecked()).toBe(true)
    for (const name of ['Unpaid or self promotion', 'Interaction reminder', 'Intro', 'Endcards and credits', 'Preview or recap', 'Filler tangent', 'Non-music section']) {
      await page.getByRole('radiogroup', { name: `${name}: action` }).waitFor()
    }
    await group.getByText('Mute', { exact: true }).click()
    await page.getByRole('radiogroup', { name: 'Intro: action' }).getByText('Show', { exact: true }).click()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').filter({ hasText: 'SponsorBlock settings saved.' }).waitFor()
    const saved = await api<{ categories: Record<string, string> }>('/api/youtube/sponsorblock')
    expect(saved.categories).toMatchObject({ sponsor: 'mute', intro: 'show', selfpromo: 'skip', filler: 'off' })
    await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }))
    await screenshot(page, 'account-sponsorblock', { fullPage: true })
    expect(await axeFindings(page, '/account?tab=sponsorblock')).toEqual([])

    // a reload shows what was saved
    await page.reload()
    await page.getByRole('radiogroup', { name: 'Sponsor: action' }).waitFor()
    expect(await page.getByRole('radiogroup', { name: 'Sponsor: action' }).getByRole('radio', { name: 'Mute' }).isChecked()).toBe(true)
  }, 60_000)

  noPageErrors()
})
