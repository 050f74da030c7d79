import { beforeAll, describe, expect, test } from 'bun:test'
import {
  api,
  card,
  cards,
  clipLoaded,
  DESKTOP,
  footer,
  footerTitle,
  listSettled,
  noPageErrors,
  page,
  progressSlider,
  search,
  setClip,
  setUpVideoArea,
  shot,
  subscribeAndWait,
  until,
  videoTime,
  waitForFooterTitle,
  type VideoJson,
} from '../support/videos-e2e.ts'

// Autoplay in the footer player: through the queue, and across feed pages.
// Set-up and helpers: tests/support/videos-e2e.ts.

setUpVideoArea()

describe('video area in the browser: autoplay', () => {
  let queued: VideoJson[] = []

  // the state the feed test leaves (videos-feed.test.ts): a subscribed channel and
  // three queued videos, the first watched on its page
  beforeAll(async () => {
    await subscribeAndWait('@lofi-garden', 150)
    const { videos } = await api<{ videos: VideoJson[] }>('/api/youtube/videos/list?per_page=4')
    for (const v of [videos[0]!, videos[2]!, videos[3]!]) {
      expect((await page.request.put(`/api/youtube/videos/${v.id}/queue`)).status()).toBe(200)
    }
    expect((await page.request.put(`/api/youtube/videos/${videos[0]!.id}/watch`)).status()).toBe(200)
    queued = (await api<{ videos: VideoJson[] }>('/api/youtube/videos/list?queued_only=true')).videos
    expect(queued).toHaveLength(3)
  }, 120_000)

  test(
    'autoplay plays the queue back to back in the footer player and marks videos watched',
    async () => {
      await page.goto('/youtube/videos?queuedOnly=true')
      await page.waitForFunction(() => document.querySelectorAll('article[data-video-id]').length === 3)
      expect(await footer().getAttribute('aria-hidden')).toBe('true')
      await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
      await progressSlider().waitFor()
      await waitForFooterTitle(queued[0]!.title)
      expect(await page.getByRole('button', { name: 'Stop AutoPlay' }).isVisible()).toBe(true)
      // the first was watched on its page; run it and the second at 16x
      await clipLoaded(queued[0]!.id)
      await setClip({ rate: 16, defaultRate: 16 })
      await waitForFooterTitle(queued[1]!.title)
      await clipLoaded(queued[1]!.id)
      await setClip({ rate: 16, defaultRate: 1 }) // the next clip loads at normal speed
      expect(await footer().getByRole('button', { name: 'Pause' }).isVisible()).toBe(true)
      // the second ran to its end at 16x: counted watched although no report fell past 20 s
      await until('second watched', async () => (await api<VideoJson>(`/api/youtube/videos/${queued[1]!.id}`)).watched)
      await card(queued[1]!.id).getByRole('img', { name: /^Watched on / }).waitFor()

      // the third at normal speed from 18 s: the watch call goes out once playback passes 20 s
      await waitForFooterTitle(queued[2]!.title)
      await clipLoaded(queued[2]!.id)
      const watched = page.waitForResponse((r) => r.url().endsWith(`/videos/${queued[2]!.id}/watch`) && r.request().method() === 'PUT', {
        timeout: 15_000,
      })
      await setClip({ at: 18 })
      await watched
      expect(await videoTime()).toBeGreaterThan(20)
      expect(await videoTime()).toBeLessThan(29)
      expect(await footer().getByTestId('mark-end').textContent()).toBe('0:30')
      expect(await footer().getByTestId('mark-start').textContent()).toBe('0:00')
      expect(await footer().getByTestId('played-time').textContent()).toMatch(/^0:2\d$/)
      await shot('player')

      // the Media Session knows what plays
      expect(await page.evaluate(() => navigator.mediaSession.metadata?.title)).toBe(queued[2]!.title)

      // the queue panel: mini player, 'Queue' list; choosing an item plays it from 0
      await footer().getByRole('button', { name: 'Open queue' }).click()
      const panel = page.getByRole('complementary', { name: 'Queue panel' })
      await panel.getByRole('heading', { name: 'Queue' }).waitFor()
      await page.waitForTimeout(400)
      const box = (await panel.boundingBox())!
      expect(Math.round(box.width)).toBe(Math.round(DESKTOP.width * 0.8))
      expect(await panel.getByTestId('mini-player').locator('video').count()).toBe(1)
      await panel.getByRole('button', { name: new RegExp(queued[0]!.title) }).click()
      await waitForFooterTitle(queued[0]!.title)
      await until('restart from 0', async () => {
        const t = await videoTime()
        return t > 0 && t < 5
      })
      await shot('queue-panel')
      await panel.getByRole('button', { name: 'Close queue' }).last().click()

      // keyboard: shift+n / shift+p, k, ? lists the shortcuts
      await page.mouse.click(640, 130) // focus the page, not a button
      await page.keyboard.press('Shift+N')
      await waitForFooterTitle(queued[1]!.title)
      await page.keyboard.press('Shift+P')
      await waitForFooterTitle(queued[0]!.title)
      await page.keyboard.press('k')
      await footer().getByRole('button', { name: 'Play' }).waitFor()
      await page.keyboard.press('k')
      await footer().getByRole('button', { name: 'Pause' }).waitFor()
      await page.keyboard.press('?')
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
      await help.getByText('Next video').waitFor()
      await page.keyboard.press('Escape')
      await help.waitFor({ state: 'hidden' })

      // past the last video it stops
      await footer().getByRole('button', { name: 'Next video' }).click()
      await footer().getByRole('button', { name: 'Next video' }).click()
      await waitForFooterTitle(queued[2]!.title)
      await clipLoaded(queued[2]!.id)
      await setClip({ at: 'end' })
      await footer().getByRole('button', { name: 'Play' }).waitFor({ timeout: 10_000 })
      expect(await footerTitle()).toBe(queued[2]!.title)

      // leaving the list clears it
      await page.getByRole('link', { name: 'Subscriptions' }).click()
      await page.waitForURL((url) => url.pathname === '/youtube/subscriptions')
      await page.waitForFunction(() => !document.querySelector('video') && document.querySelector('footer')?.getAttribute('aria-hidden') === 'true')
    },
    { timeout: 120_000 },
  )


  test(
    'autoplay crosses page boundaries forward and back, and resumes the position after a reload',
    async () => {
      await page.goto('/youtube/videos?perPage=3')
      await listSettled()
      const page1 = await cards().evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')!))
      expect(page1).toHaveLength(3)
      await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
      await waitForFooterTitle(page1[0]!)
      await footer().getByRole('button', { name: 'Open queue' }).click()
      const panel = page.getByRole('complementary', { name: 'Queue panel' })
      await panel.getByRole('button', { name: new RegExp(page1[2]!) }).click()
      await waitForFooterTitle(page1[2]!)
      await panel.getByRole('button', { name: 'Close queue' }).last().click()

      // next past the last item: page 2 loads (the grid too) and plays from its first video
      await footer().getByRole('button', { name: 'Next video' }).click()
      await page.waitForURL(() => search().get('page') === '2')
      await listSettled()
      const page2 = await cards().evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')!))
      await waitForFooterTitle(page2[0]!)
      expect(search().get('perPage')).toBe('3')

      // previous before the first: page 1 again, at its last video
      await footer().getByRole('button', { name: 'Previous video' }).click()
      await page.waitForURL(() => !search().has('page'))
      await waitForFooterTitle(page1[2]!)

      // a clip that ends on the last item moves on to the next page by itself
      const ids1 = await cards().evaluateAll((els) => els.map((e) => e.getAttribute('data-video-id')!))
      await clipLoaded(ids1[2]!)
      await setClip({ at: 'end' })
      await page.waitForURL(() => search().get('page') === '2', { timeout: 15_000 })
      await waitForFooterTitle(page2[0]!)

      // stop at 12 s; after a reload the same video resumes there
      const ids2 = await cards().evaluateAll((els) => els.map((e) => e.getAttribute('data-video-id')!))
      await clipLoaded(ids2[0]!)
      await setClip({ at: 12 })
      await until('at 12 s', async () => (await videoTime()) >= 12)
      const saved = page.waitForResponse((r) => r.url().includes('/progress') && r.request().method() === 'PUT')
      await footer().getByRole('button', { name: 'Pause' }).click()
      await saved
      await page.reload()
      await listSettled()
      expect(await footer().getAttribute('aria-hidden')).toBe('true') // autoplay is per page visit
      await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
      await waitForFooterTitle(page2[0]!)
      await until('resumed at 12 s', async () => (await videoTime()) >= 12)
      expect(await videoTime()).toBeLessThan(18)
      await page.getByRole('button', { name: 'Stop AutoPlay' }).click()
      await page.waitForFunction(() => !document.querySelector('video'))
    },
    { timeout: 120_000 },
  )
})

noPageErrors()
