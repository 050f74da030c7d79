import { describe, expect, test } from 'bun:test'
import { api, card, cards, listSettled, noPageErrors, page, search, setUpVideoArea, shot, subscribeAndWait, until, videoTime, type VideoJson } from '../support/videos-e2e.ts'

// The feed's filters and card actions, then the video page (playback, resume,
// watched, description) on the videos the feed test queued. Set-up and helpers:
// tests/support/videos-e2e.ts.

setUpVideoArea()

describe('video area in the browser: the feed and the video page', () => {
  let queued: VideoJson[] = []

  test(
    'the feed: category, liked and queued filters in the URL; like, queue and unqueue from a card',
    async () => {
      await subscribeAndWait('@lofi-garden', 150) // up to 200 backfilled uploads: more than 4 pages of 48
      await page.goto('/youtube/subscriptions')
      await page.getByRole('link', { name: 'Videos' }).click()
      await page.waitForURL((url) => url.pathname === '/youtube/videos')
      await page.waitForFunction(() => document.title === 'Videos | Tunefeed')
      await listSettled()
      expect(await cards().count()).toBe(48)
      await page.getByRole('button', { name: 'Next page' }).waitFor() // the pager comes once the grid has painted

      // page 2, then a category: the page goes back to 1 and every card is of that category
      await page.getByRole('button', { name: 'Next page' }).click()
      await page.waitForURL(() => search().get('page') === '2')
      await listSettled()
      await page.getByRole('combobox', { name: 'Categories' }).click()
      await page.getByRole('option', { name: 'Music' }).click()
      await page.keyboard.press('Escape')
      await page.waitForURL(() => search().has('videoCategories'))
      expect(search().get('page')).toBeNull()
      expect(JSON.parse(search().get('videoCategories')!)).toEqual([10])
      await listSettled()
      const n = await cards().count()
      expect(n).toBeGreaterThan(0)
      expect(await page.locator('article[data-video-id] [role=img][aria-label="Music"]').count()).toBe(n)
      // a second category adds to the first
      await page.getByRole('combobox', { name: 'Categories' }).click()
      const other = page.getByRole('option').filter({ hasNotText: /^Music$/ }).first()
      await other.click()
      await page.keyboard.press('Escape')
      await page.waitForURL(() => JSON.parse(search().get('videoCategories') ?? '[]').length === 2)
      await page.goto('/youtube/videos')
      await listSettled()

      // liked only: nothing yet
      await page.getByRole('checkbox', { name: 'Show Liked Only' }).check({ force: true })
      await page.waitForURL(() => search().get('likedOnly') === 'true')
      await page.getByText('No liked videos.').waitFor()
      await page.getByRole('checkbox', { name: 'Show Liked Only' }).uncheck({ force: true })
      await page.waitForURL(() => !search().has('likedOnly'))
      await listSettled()

      // queue the first four cards, unqueue the second, like the first
      const ids = await cards().evaluateAll((els) => els.slice(0, 4).map((e) => e.getAttribute('data-video-id')!))
      for (const id of ids) {
        await card(id).hover()
        await card(id).getByRole('button', { name: 'Queue', exact: true }).click()
        // optimistic: pressed at once, before the server answers
        expect(await card(id).getByRole('button', { name: 'Unqueue' }).getAttribute('aria-pressed')).toBe('true')
      }
      await card(ids[1]!).getByRole('button', { name: 'Unqueue' }).click()
      await card(ids[1]!).getByRole('button', { name: 'Queue', exact: true }).waitFor()
      await card(ids[0]!).hover()
      const like = card(ids[0]!).getByRole('button', { name: 'Like' })
      await like.click()
      await card(ids[0]!).getByRole('button', { name: 'Unlike' }).hover()
      await page.getByText(`Liked on ${await page.evaluate(() => new Date().toLocaleDateString())}`).waitFor()
      await card(ids[3]!).hover()
      await page.mouse.move(5, 400)
      await card(ids[0]!).hover()
      await shot('videos')

      queued = await until('queue saved', async () => {
        const list = await api<{ videos: VideoJson[] }>('/api/youtube/videos/list?queued_only=true')
        return list.videos.length === 3 ? list.videos : null
      })
      expect(queued.map((v) => v.id)).toEqual([ids[0]!, ids[2]!, ids[3]!]) // queue order: oldest first
      const liked = await api<{ videos: VideoJson[] }>('/api/youtube/videos/list?liked_only=true')
      expect(liked.videos.map((v) => v.id)).toEqual([ids[0]!])

      // queued only shows them, in queue order, with the overlay always on
      await page.getByRole('checkbox', { name: 'Show Queued Only' }).check({ force: true })
      await page.waitForURL(() => search().get('queuedOnly') === 'true')
      await page.waitForFunction(() => document.querySelectorAll('article[data-video-id]').length === 3)
      expect(await cards().evaluateAll((els) => els.map((e) => e.getAttribute('data-video-id')))).toEqual(queued.map((v) => v.id))
    },
    { timeout: 120_000 },
  )


  test(
    'the video page plays at once, shows related videos, resumes where it stopped and marks watched past 20 s',
    async () => {
      const video = queued[0]!
      await page.goto('/youtube/videos?queuedOnly=true')
      await card(video.id).getByRole('link', { name: video.title, exact: true }).click()
      await page.waitForURL((url) => url.pathname === `/youtube/video/${video.id}`)
      await page.getByRole('heading', { name: video.title, level: 1 }).waitFor()
      await page.waitForFunction((t) => document.title === `${t} | Tunefeed`, video.title)
      // plays at once
      await until('playback', async () => (await videoTime()) > 0.5)
      await page.getByRole('heading', { name: 'Related Videos' }).waitFor()
      expect(await page.locator('section[aria-labelledby=related-heading] article[data-video-id]').count()).toBe(4)
      const actions = page.getByRole('group', { name: 'Video actions' })
      expect(await actions.getByRole('button', { name: 'Liked' }).getAttribute('aria-pressed')).toBe('true')
      expect(await actions.getByRole('button', { name: 'Unqueue' }).getAttribute('aria-pressed')).toBe('true')
      await actions.getByRole('button', { name: 'Liked' }).hover()
      await page.getByRole('tooltip').filter({ hasText: /^Liked on / }).waitFor()
      await shot('video')

      // 'l' jumps 10 s, 'k' pauses: the position is saved and a reload resumes there
      await page.keyboard.press('l')
      await until('seek', async () => (await videoTime()) >= 10)
      const saved = page.waitForResponse((r) => r.url().includes(`/videos/${video.id}/progress`) && r.request().method() === 'PUT')
      await page.keyboard.press('k')
      await saved
      const at = await videoTime()
      const progress = await api<{ playedSeconds: number }>(`/api/youtube/videos/${video.id}/progress`)
      expect(Math.abs(progress.playedSeconds - at)).toBeLessThan(1.5)
      await page.reload()
      await until('resumed playback', async () => (await videoTime()) > at + 0.2)
      const resumed = await videoTime()
      expect(resumed).toBeGreaterThanOrEqual(Math.floor(at))
      expect(resumed).toBeLessThan(at + 6)

      // past 20 s of playback the video counts as watched
      await page.keyboard.press('l')
      await actions.getByRole('button', { name: /^Watched on / }).waitFor({ timeout: 10_000 })
      expect((await api<VideoJson>(`/api/youtube/videos/${video.id}`)).watched).not.toBeNull()

      // 'Save as track' opens the Music Downloader prefilled
      await page.getByRole('link', { name: `Save as track: ${video.title}` }).click()
      await page.waitForURL((url) => url.pathname === '/music/downloader')
      expect(search().get('videoUrl')).toContain(`/media/${video.id}.webm`)
      expect(search().get('artist')).toBe(video.channel.title)
      expect(search().get('artworkUrl')).toContain(video.id)
    },
    { timeout: 120_000 },
  )


  test(
    "a long description folds at 80 px behind 'Show more' / 'Hide'; an unknown video cannot be loaded",
    async () => {
      const video = queued[1]!
      const long = Array.from({ length: 14 }, (_, i) => `Line ${i + 1} of a long description.`).join('\n')
      const detail = new RegExp(`/api/youtube/videos/${video.id}\\?`)
      await page.route(detail, async (route) => {
        const res = await route.fetch()
        await route.fulfill({ response: res, json: { ...(await res.json()), description: long } })
      })
      await page.goto(`/youtube/video/${video.id}`)
      const box = page.locator('#video-description')
      await box.waitFor()
      expect((await box.boundingBox())!.height).toBeLessThanOrEqual(80)
      await page.getByRole('button', { name: 'Show more' }).click()
      await page.getByRole('button', { name: 'Hide' }).waitFor()
      expect((await box.boundingBox())!.height).toBeGreaterThan(200)
      await page.getByRole('button', { name: 'Hide' }).click()
      expect((await box.boundingBox())!.height).toBeLessThanOrEqual(80)
      await page.unroute(detail)

      await page.goto('/youtube/video/AAAAAAAAAAA')
      await page.getByText('Video could not be loaded').waitFor()
      // a made-up channel id: resolved first (YouTube does not know it), so docs/product.md#channel-page's 'Channel could not be loaded', no Subscribe
      await page.goto('/youtube/channel/UCAAAAAAAAAAAAAAAAAAAAAA')
      await page.getByText('Channel could not be loaded').waitFor()
      expect(await page.getByRole('button', { name: 'Subscribe' }).count()).toBe(0)
    },
    { timeout: 60_000 },
  )
})

noPageErrors()
