import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Frame } from 'playwright-core'
import { SCREENSHOTS } from '../support/e2e.ts'
import { api, cards, fake, footer, footerTitle, listSettled, noPageErrors, page, search, setUpVideoArea, shot, subscribeAndWait, until, waitForFooterTitle, type VideoJson } from '../support/videos-e2e.ts'

// The production path: no direct media, so every video plays through the IFrame Player API,
// here its local stand-in (scripts/fake-youtube/iframe-api.ts) loaded from YOUTUBE_IFRAME_API_URL.

setUpVideoArea({ directMedia: false })

/** The embed frame whose clip is `id` (or any embed frame). */
async function embed(id?: string): Promise<Frame> {
  return until(`embed frame${id ? ` playing ${id}` : ''}`, async () => {
    for (const frame of page.frames()) {
      if (!frame.url().includes('/embed/')) continue
      if (!id) return frame
      const src = await frame.evaluate(() => (document.getElementById('v') as HTMLVideoElement).src).catch(() => '')
      if (src.includes(`/media/${id}.webm`)) return frame
    }
    return null
  })
}
const clip = <T>(frame: Frame, fn: (v: HTMLVideoElement) => T) =>
  frame.evaluate(`(${fn.toString()})(document.getElementById('v'))`) as Promise<T>
const embedTime = async (id?: string) => clip(await embed(id), (v) => v.currentTime)
async function playing(id: string) {
  const frame = await embed(id)
  await until(`${id} playing`, () => clip(frame, (v) => v.readyState >= 1 && !v.paused))
  return frame
}
/** The embed's next play() of clip `id` is refused, as a browser refuses autoplay (NotAllowedError). */
async function refusePlayOnce(id: string) {
  await (await embed()).evaluate((clipId) => {
    const w = window as unknown as { refusedPlays: number }
    w.refusedPlays = 0
    const play = HTMLMediaElement.prototype.play
    HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
      if (w.refusedPlays === 0 && this.src.includes(`/media/${clipId}.webm`)) {
        w.refusedPlays++
        return Promise.reject(new DOMException('play() can only be initiated by a user gesture.', 'NotAllowedError'))
      }
      return play.call(this)
    }
  }, id)
}
async function toEnd(id: string) {
  const frame = await playing(id)
  await clip(frame, (v) => {
    v.currentTime = v.duration - 0.3
  })
}

describe('video area through the IFrame Player API', () => {
  let videos: VideoJson[] = []
  beforeAll(async () => {
    // Media Session actions as the browser would call them (from a headset or the lock screen)
    await page.context().addInitScript(() => {
      const handlers: Record<string, MediaSessionActionHandler | null> = {}
      const original = navigator.mediaSession.setActionHandler.bind(navigator.mediaSession)
      navigator.mediaSession.setActionHandler = (action, handler) => {
        handlers[action] = handler
        original(action, handler)
      }
      ;(window as unknown as { mediaSessionAction(a: string): void }).mediaSessionAction = (a) => handlers[a]?.({ action: a as MediaSessionAction })
    })
    await subscribeAndWait('@star-lab', fake.channel('@star-lab').uploads.length)
    const list = await api<{ videos: (VideoJson & { mediaUrl: string | null })[] }>('/api/youtube/videos/list?per_page=12')
    expect(list.videos.every((v) => v.mediaUrl === null)).toBe(true) // no direct media: production-like
    videos = list.videos
  }, 120_000)

  test(
    'a video page plays in the embed, resumes at the saved position, counts as watched past 20 s; keyboard and Media Session pause and play',
    async () => {
      const video = videos[0]!
      await page.goto(`/youtube/video/${video.id}`)
      await page.getByRole('heading', { name: video.title, level: 1 }).waitFor()
      const frame = await embed(video.id)
      expect(frame.url()).toStartWith(`${fake.url}/embed/`)
      expect(fake.iframeApiRequests).toBeGreaterThan(0)
      expect(await page.locator('video').count()).toBe(0) // nothing plays in the page itself
      await until('playback', async () => (await embedTime(video.id)) > 0.5)
      await shot('video-iframe')

      // keyboard: 'l' seeks 10 s, 'k' pauses (the position is saved), 'k' plays again
      await page.mouse.click(640, 20)
      await page.keyboard.press('l')
      await until('seek', async () => (await embedTime(video.id)) >= 10)
      const saved = page.waitForResponse((r) => r.url().includes(`/videos/${video.id}/progress`) && r.request().method() === 'PUT')
      await page.keyboard.press('k')
      await saved
      await until('paused', () => clip(frame, (v) => v.paused))
      const at = await embedTime(video.id)
      await page.keyboard.press('k')
      await until('playing again', () => clip(frame, (v) => !v.paused))

      // the Media Session's pause and play reach the embed too
      await page.evaluate(() => (window as unknown as { mediaSessionAction(a: string): void }).mediaSessionAction('pause'))
      await until('paused by the Media Session', () => clip(frame, (v) => v.paused))
      await page.evaluate(() => (window as unknown as { mediaSessionAction(a: string): void }).mediaSessionAction('play'))
      await until('played by the Media Session', () => clip(frame, (v) => !v.paused))

      // a reload resumes where it stopped
      await page.keyboard.press('k')
      await until('paused', async () => clip(await embed(video.id), (v) => v.paused))
      const stopped = (await api<{ playedSeconds: number }>(`/api/youtube/videos/${video.id}/progress`)).playedSeconds
      expect(stopped).toBeGreaterThanOrEqual(Math.floor(at))
      await page.reload()
      await until('resumed playback', async () => (await embedTime(video.id)) > stopped + 0.2)
      expect(await embedTime(video.id)).toBeLessThan(stopped + 6)

      // past 20 s it counts as watched
      await page.keyboard.press('l')
      await page.getByRole('group', { name: 'Video actions' }).getByRole('button', { name: /^Watched on / }).waitFor({ timeout: 15_000 })
    },
    { timeout: 120_000 },
  )

  test(
    'autoplay advances on ENDED across a page boundary; errors 150, 101 and 100 skip on with a notice and never stall',
    async () => {
      // page 2 (perPage 3): its second video disallows embedding (150), its third too (101);
      // page 3's first is removed (100)
      fake.embedErrors.set(videos[4]!.id, 150)
      fake.embedErrors.set(videos[5]!.id, 101)
      fake.removeVideo(videos[6]!.id)

      await page.goto('/youtube/videos?perPage=3')
      await listSettled()
      await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
      await waitForFooterTitle(videos[0]!.title)
      // Next twice in one instant: two loads a few milliseconds apart, the first one's states
      // arriving after the second was issued. And the browser refuses the last video's first
      // play() (as it may refuse autoplay), so its load settles unstarted: the backend plays
      // it again (docs/decisions/092)
      await refusePlayOnce(videos[2]!.id)
      const next = footer().getByRole('button', { name: 'Next video' })
      await next.click()
      await next.click()
      await waitForFooterTitle(videos[2]!.title)
      const third = await playing(videos[2]!.id)
      expect(await third.evaluate(() => (window as unknown as { refusedPlays: number }).refusedPlays)).toBe(1)
      await footer().getByRole('button', { name: 'Pause' }).waitFor()
      // the last of page 1 ends: page 2 plays from its first
      await toEnd(videos[2]!.id)
      await page.waitForURL(() => search().get('page') === '2', { timeout: 15_000 })
      await waitForFooterTitle(videos[3]!.title)
      await shot('autoplay-iframe')

      // it ends: the next two cannot be embedded, page 3's first is gone; each says so (a notice
      // lasts 4 s: both are watched for from before the first) and autoplay moves on
      const notices = Promise.all(
        ['The owner does not allow playing this video here', 'This video was removed or is private'].map((text) =>
          page.getByText(text).first().waitFor({ timeout: 45_000 }),
        ),
      )
      await toEnd(videos[3]!.id)
      await notices
      // at once: the notices do not wait for shot()'s settling
      await page.screenshot({ path: join(SCREENSHOTS, 'autoplay-iframe-errors.png') })
      await page.waitForURL(() => search().get('page') === '3', { timeout: 15_000 })
      await waitForFooterTitle(videos[7]!.title)
      await until('the next one plays', async () => (await embedTime(videos[7]!.id)) > 0.3)
      await listSettled()
      expect(await cards().count()).toBeGreaterThan(0)
    },
    { timeout: 120_000 },
  )

  test(
    "an unplayable video's error that arrives while Next starts the following one does not skip that one",
    async () => {
      // page 3 (perPage 4): its first plays, its second cannot be embedded (150) and its error is
      // held back until Next was pressed again, while the third's saved position is still fetched
      const [first, broken, third, fourth] = videos.slice(8, 12) as [VideoJson, VideoJson, VideoJson, VideoJson]
      fake.embedErrors.set(broken.id, 150)
      const releaseError = fake.hold((path) => path === `/embed/${broken.id}/status`)
      const { promise: positionHeld, resolve: releasePosition } = Promise.withResolvers<void>()
      const positionAsked = Promise.withResolvers<void>()
      await page.route(`**/api/youtube/videos/${third.id}/progress`, async (route) => {
        if (route.request().method() !== 'GET') return route.continue()
        positionAsked.resolve()
        await positionHeld
        await route.continue().catch(() => {}) // unrouted meanwhile: the request went on by itself
      })
      try {
        await page.goto('/youtube/videos?perPage=4&page=3')
        await listSettled()
        const stop = page.getByRole('button', { name: 'Stop AutoPlay' })
        if (await stop.isVisible()) await stop.click()
        await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
        await waitForFooterTitle(first.title)
        await playing(first.id)
        const next = footer().getByRole('button', { name: 'Next video' })
        await next.click()
        await waitForFooterTitle(broken.title)
        await next.click()
        await waitForFooterTitle(third.title)
        await positionAsked.promise
        // the broken video's error reaches the page while the third one's start is fetched
        releaseError()
        // (it would show its notice and move on from the third to the fourth at once)
        const noticed = await page
          .getByText('The owner does not allow playing this video here')
          .first()
          .waitFor({ timeout: 3_000 })
          .then(() => true, () => false)
        releasePosition()
        expect(noticed).toBe(false)
        expect(await footerTitle()).not.toBe(fourth.title)
        await playing(third.id)
        expect(await footerTitle()).toBe(third.title)
      } finally {
        releaseError()
        releasePosition()
        await page.unroute(`**/api/youtube/videos/${third.id}/progress`)
      }
    },
    { timeout: 120_000 },
  )
})

noPageErrors()
