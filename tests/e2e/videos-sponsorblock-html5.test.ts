import { beforeAll, describe, expect, test } from 'bun:test'
import { axeFindings } from '../support/axe.ts'
import { expectOnlyHashPrefixes, recordSeeks, skipTo } from '../support/sponsorblock-e2e.ts'
import {
  api,
  clipLoaded,
  fake,
  footer,
  listSettled,
  noPageErrors,
  page,
  perf,
  progressSlider,
  setUpVideoArea,
  sponsorBlock,
  shot,
  subscribeAndWait,
  until,
  waitForFooterTitle,
  type VideoJson,
} from '../support/videos-e2e.ts'

// SponsorBlock in the HTML5 player: the footer's autoplay player playing the fake's clips
// through the page's own <video> (the YouTube player: videos-sponsorblock.test.ts). Skip, mute
// and show segments from the SponsorBlock stand-in, which records what it is asked.

setUpVideoArea({ context: { bypassCSP: true } })

const clip = () =>
  page.evaluate(() => {
    const v = document.querySelector('video[data-player=html5]') as HTMLVideoElement
    return { t: v.currentTime, muted: v.muted }
  })

describe('SponsorBlock in the HTML5 player', () => {
  let videos: VideoJson[] = []
  beforeAll(async () => {
    await subscribeAndWait('@tiny-kitchen', fake.channel('@tiny-kitchen').uploads.length)
    videos = (await api<{ videos: VideoJson[] }>('/api/youtube/videos/list?per_page=12')).videos
    sponsorBlock.segments.set(videos[0]!.id, [
      { category: 'sponsor', segment: [4, 8] },
      { category: 'filler', segment: [11, 14] },
      { category: 'intro', segment: [20, 24] },
    ])
    const res = await page.request.put('/api/youtube/sponsorblock', { data: { categories: { filler: 'mute', intro: 'show' } } })
    expect(res.status()).toBe(200)
  }, 120_000)

  test(
    'the footer player skips a skip segment, mutes a mute one for its span, marks a show one; the notice and Go back by keyboard',
    async () => {
      const video = videos[0]!
      await page.goto('/youtube/videos')
      await listSettled()
      await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
      await waitForFooterTitle(video.title)
      await clipLoaded(video.id)
      await recordSeeks(page, 'video[data-player=html5]')

      // show: a mark on the progress bar, described in words
      await footer().getByTestId('segment-mark').waitFor()
      const described = await progressSlider().getAttribute('aria-describedby')
      expect(await page.locator(`[id="${described}"]`).textContent()).toBe('Marked segments: Intro from 0:20 to 0:24.')

      // skip: within half a second of the start, to the end; a notice above the footer
      const notice = page.getByRole('status').filter({ hasText: 'Skipped a sponsor segment (0:04)' })
      await notice.waitFor({ timeout: 30_000 })
      const skip = await until('the skip to the end of the segment', () => skipTo(page, video.id, 8))
      perf.html5SkipAfterStartSeconds = Number((skip.from - 4).toFixed(3))
      expect(skip.from).toBeGreaterThanOrEqual(3.85)
      expect(skip.from).toBeLessThan(4.5)
      await shot('sponsorblock-notice-footer')
      expect(await axeFindings(page, 'videos page with the footer SponsorBlock notice')).toEqual([])

      // mute: muted inside the span, the sound back after it
      await until('muted inside the filler segment', async () => {
        const c = await clip()
        return c.t > 11.3 && c.t < 13.7 && c.muted
      })
      await until('the sound back after it', async () => {
        const c = await clip()
        return c.t > 14.5 && !c.muted
      })

      // Go back by keyboard: the notice comes right after the footer's last button
      await footer().getByRole('button', { name: 'Open queue' }).focus()
      await page.keyboard.press('Tab')
      expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Go back')
      await page.keyboard.press('Enter')
      await page.getByRole('status').filter({ hasText: 'Went back to a sponsor segment at 0:04: it plays this time.' }).waitFor()
      await until('playing inside the skipped segment', async () => {
        const c = await clip()
        return c.t > 5 && c.t < 7.9
      })

      expectOnlyHashPrefixes(
        sponsorBlock,
        videos.map((v) => v.id),
      )
    },
    { timeout: 120_000 },
  )

  test('SponsorBlock down: the player says so in words and plays on', async () => {
    sponsorBlock.sponsorBlockDown = true
    try {
      await footer().getByRole('button', { name: 'Next video' }).click()
      await waitForFooterTitle(videos[1]!.title)
      await page.getByRole('status').filter({ hasText: 'SponsorBlock could not be reached, so no segments are skipped in this video.' }).waitFor()
      await clipLoaded(videos[1]!.id)
      await until('playing on', async () => (await clip()).t > 1)
    } finally {
      sponsorBlock.sponsorBlockDown = false
    }
  }, 60_000)

  noPageErrors()
})
