import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { watchUrl } from '../../src/youtube/listen/audio.ts'
import { ERROR_SENTENCES } from '../../src/tools/failure.ts'
import { axeFindings } from '../support/axe.ts'
import { expectOnlyHashPrefixes, recordSeeks, seeks } from '../support/sponsorblock-e2e.ts'
import { type FakeYtdlp, startFakeYtdlp } from '../support/fake-ytdlp.ts'
import { makeTone, type MediaServer, startMediaServer } from '../support/media.ts'
import {
  api,
  footer,
  listSettled,
  noPageErrors,
  page,
  PHONE,
  DESKTOP,
  setUpVideoArea,
  shot,
  sponsorBlock,
  until,
  waitForFooterTitle,
  type VideoJson,
} from '../support/videos-e2e.ts'

// Listen mode (issue 27, docs/product.md#listen-mode): the autoplay player's 'Listen' switch plays
// the queue through an <audio> element from GET /api/youtube/videos/{id}/audio. The server fetches
// that audio with yt-dlp: the stand-in yt-dlp (tests/support/fake-ytdlp.ts) maps each video's watch
// URL to a 12 s tone on the loopback media server, the first video's to a throttled copy (so its
// fetch takes a few seconds and 'Preparing audio…' shows), one video's to a private-video failure,
// and the last one's to a 30 s tone (for the watched-at-20-s rule).

const CHANNEL = '@tiny-kitchen'
let media: MediaServer
let ytdlp: FakeYtdlp
let toneDir: string
/** The four queued videos: [0] fetched slowly, [1] quickly, [2] fails (private), [3] quickly (30 s). */
let queued: VideoJson[] = []

setUpVideoArea({
  bypassCSP: true,
  env: async (fake) => {
    toneDir = mkdtempSync(join(tmpdir(), 'tunefeed-listen-e2e-'))
    const tone = join(toneDir, 'tone.mp3')
    const long = join(toneDir, 'long.mp3')
    ;[media] = await Promise.all([startMediaServer(), makeTone(tone, 12), makeTone(long, 30)])
    media.addFile('tone.mp3', tone)
    media.addFile('long.mp3', long)
    // about 4 s for the 288 kB tone
    media.slowRate = 72 * 1024
    const uploads = fake.channel(CHANNEL).uploads
    const urls = Object.fromEntries(uploads.map((id) => [watchUrl(id), `${media.url}/files/tone.mp3`]))
    // which upload is which is known once the queue is read: the slow and the failing one are mapped there
    ytdlp = startFakeYtdlp({ urls })
    return { YTDLP_PATH: ytdlp.path, FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com', AUDIO_CACHE_MB: '64' }
  },
})

afterAll(async () => {
  await media?.stop()
  ytdlp?.stop()
  if (toneDir) rmSync(toneDir, { recursive: true, force: true })
})

/**
 * Listen mode's strip (issue 37, minor 6): beside the side navigation, never over its Account link
 * (1280 × 800), and the floating SponsorBlock notice sits above it, inside the window, at any width.
 */
async function expectClearOfStrip() {
  const layout = await page.evaluate(() => {
    const box = (el: Element | null) => el?.getBoundingClientRect() ?? null
    const strip = box(document.querySelector('[data-testid=listen-notice]'))!
    const account = [...document.querySelectorAll('nav a')].find((a) => a.textContent?.trim() === 'Account') ?? null
    const sbNotice = [...document.querySelectorAll('[data-testid=segment-notice]')].find((n) => getComputedStyle(n).position === 'fixed')!
    const style = getComputedStyle(sbNotice)
    return {
      strip: { top: strip.top, left: strip.left, right: strip.right },
      account: account?.checkVisibility() ? box(account) : null,
      // where the notice's lower edge sits (it is empty now: its place, not its box)
      noticeBottom: innerHeight - Number.parseFloat(style.bottom),
      noticeMaxWidth: style.maxWidth,
      width: innerWidth,
    }
  })
  expect(layout.strip.right).toBeLessThanOrEqual(layout.width)
  if (layout.account) {
    const a = layout.account
    const overlaps = a.right > layout.strip.left && a.bottom > layout.strip.top
    expect(overlaps).toBe(false)
  }
  expect(layout.noticeBottom).toBeLessThanOrEqual(layout.strip.top)
}

const listenSwitch = () => footer().getByRole('button', { name: 'Listen' })
const notice = () => page.getByTestId('listen-notice').getByRole('status')

type AudioView = { src: string; currentTime: number; paused: boolean } | null
const audioView = (): Promise<AudioView> =>
  page.evaluate(() => {
    const a = document.querySelector('audio[data-player=html5]') as HTMLAudioElement | null
    return a ? { src: a.src, currentTime: a.currentTime, paused: a.paused } : null
  })

/** Changes the playing audio: its rate and/or position (seconds). */
async function setAudio(opts: { rate?: number; at?: number }) {
  await page.evaluate((o) => {
    const a = document.querySelector('audio[data-player=html5]') as HTMLAudioElement
    if (o.rate !== undefined) a.playbackRate = o.rate
    if (o.at !== undefined) a.currentTime = o.at
  }, opts)
}

/** The <audio> element plays this video's audio route, past `from` seconds. */
async function audioPlaying(id: string, from = 0.3, timeout = 30_000) {
  await page.waitForFunction(
    ({ vid, t }) => {
      const a = document.querySelector('audio[data-player=html5]') as HTMLAudioElement | null
      return !!a && a.getAttribute('src') === `/api/youtube/videos/${vid}/audio` && !a.paused && a.currentTime > t
    },
    { vid: id, t: from },
    { timeout },
  )
}

/** POSTs of .../audio the page sent, by video id (the player's asks, polls and the prefetch). */
const audioPosts: { id: string; at: number }[] = []

describe('video area in the browser: listen mode', () => {
  beforeAll(async () => {
    page.on('request', (r) => {
      const m = /\/api\/youtube\/videos\/([\w-]{11})\/audio$/.exec(new URL(r.url()).pathname)
      if (m && r.method() === 'POST') audioPosts.push({ id: m[1]!, at: Date.now() })
    })
    const channelId = (await (await page.request.put(`/api/youtube/subscriptions/user?channel_id=${CHANNEL}`)).json()).id as string
    await until(`${CHANNEL} refreshed`, async () => {
      const channel = await api<{ updating: boolean }>(`/api/youtube/channels/${channelId}`)
      return !channel.updating && (await api<{ videos: VideoJson[] }>(`/api/youtube/videos/list?channel_id=${channelId}&per_page=4`)).videos.length === 4
    }, 60_000)
    const { videos } = await api<{ videos: VideoJson[] }>(`/api/youtube/videos/list?channel_id=${channelId}&per_page=4`)
    for (const v of videos) expect((await page.request.put(`/api/youtube/videos/${v.id}/queue`)).status()).toBe(200)
    queued = (await api<{ videos: VideoJson[] }>('/api/youtube/videos/list?queued_only=true')).videos
    expect(queued).toHaveLength(4)
    // the stand-in reads its map at each call: the first is fetched slowly, the third fails
    ytdlp.mapUrl(watchUrl(queued[0]!.id), media.slowUrl('tone.mp3'))
    ytdlp.mapUrl(watchUrl(queued[2]!.id), 'http://127.0.0.1:9/fail/private')
    ytdlp.mapUrl(watchUrl(queued[3]!.id), `${media.url}/files/long.mp3`)
    // a sponsor read near the end of the second video (12 s): skipped in listen mode as with the embed
    sponsorBlock.segments.set(queued[1]!.id, [{ category: 'sponsor', segment: [8, 10] }])
  }, 120_000)

  test(
    "'Listen' plays the queue through <audio>, says 'Preparing audio…' while the audio is fetched, and steps to the next",
    async () => {
      await page.goto('/youtube/videos?queuedOnly=true')
      await page.waitForFunction(() => document.querySelectorAll('article[data-video-id]').length === 4)
      await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
      await waitForFooterTitle(queued[0]!.title)
      // off on a device that remembers nothing: the embed plays (here the HTML5 stand-in)
      expect(await listenSwitch().getAttribute('aria-pressed')).toBe('false')
      await page.waitForFunction(() => !!document.querySelector('video[data-player=html5]'))

      // by keyboard: Tab from 'Next video' reaches the switch, its focus ring shows, and Space turns it on
      await footer().getByRole('button', { name: 'Next video' }).focus()
      await page.keyboard.press('Tab')
      expect(await listenSwitch().evaluate((el) => el === document.activeElement)).toBe(true)
      expect(await listenSwitch().evaluate((el) => el.matches(':focus-visible'))).toBe(true)
      await page.keyboard.press('Space')
      expect(await listenSwitch().getAttribute('aria-pressed')).toBe('true')
      const pressedAt = Date.now()
      // the first video's audio is not cached: the player says so, in a polite live region
      await notice().getByText('Preparing audio…').waitFor({ timeout: 10_000 })
      expect(await notice().getAttribute('role')).toBe('status')
      await shot('listen-preparing')
      // then it plays from the audio route through <audio>; no <video> is left
      await audioPlaying(queued[0]!.id)
      const waited = Date.now() - pressedAt
      expect(await page.locator('video').count()).toBe(0)
      expect(await notice().textContent()).toBe('')
      const t0 = (await audioView())!.currentTime
      await until('audio time advances', async () => ((await audioView())?.currentTime ?? 0) > t0 + 0.5, 10_000)
      // polled about once a second while it was fetched
      const polls = audioPosts.filter((p) => p.id === queued[0]!.id).length
      expect(polls).toBeGreaterThanOrEqual(2)
      console.log(`listen e2e: pressed Listen → uncached audio playing in ${waited} ms after ${polls} asks`)
      await footer().getByRole('button', { name: 'Open queue' }).click()
      await page.getByTestId('listen-art').getByText('Listening').waitFor()
      await shot('listen-mode')
      await page.getByRole('complementary', { name: 'Queue panel' }).getByRole('button', { name: 'Close queue' }).last().click()
      await setAudio({ rate: 4 })

      // the next video's audio was asked for while this one played, before the step
      await until('next prepared', async () => audioPosts.some((p) => p.id === queued[1]!.id), 10_000)
      const preparedAt = audioPosts.find((p) => p.id === queued[1]!.id)!.at
      // at the end the next queued video plays through the same <audio>
      await waitForFooterTitle(queued[1]!.title, 30_000)
      const steppedAt = Date.now()
      expect(preparedAt).toBeLessThan(steppedAt)
      await audioPlaying(queued[1]!.id, 0.2)
      expect(await page.evaluate(() => navigator.mediaSession.metadata?.title)).toBe(queued[1]!.title)
      expect(await notice().textContent()).toBe('')
    },
    { timeout: 120_000 },
  )

  test(
    'switching mode mid-video goes on from the same position',
    async () => {
      // listening to the second one: to the video at its position…
      await page.evaluate(() => {
        const a = document.querySelector('audio[data-player=html5]') as HTMLAudioElement
        a.currentTime = 3
      })
      await footer().getByRole('button', { name: 'Listen' }).click()
      expect(await listenSwitch().getAttribute('aria-pressed')).toBe('false')
      await page.waitForFunction(
        () => {
          const v = document.querySelector('video[data-player=html5]') as HTMLVideoElement | null
          return !!v && v.readyState >= 1 && v.currentTime >= 3 && v.currentTime < 9
        },
        null,
        { timeout: 15_000 },
      )
      expect(await page.locator('audio').count()).toBe(0)
      await waitForFooterTitle(queued[1]!.title)
      // …and back to listening from the video's position
      await page.evaluate(() => {
        const v = document.querySelector('video[data-player=html5]') as HTMLVideoElement
        v.currentTime = 1.5
      })
      await listenSwitch().click()
      await audioPlaying(queued[1]!.id, 1.4, 15_000)
      expect((await audioView())!.currentTime).toBeLessThan(5)
      await setAudio({ rate: 4 })
    },
    { timeout: 60_000 },
  )

  test(
    "a failed fetch says why, with 'Skip to next' and 'Watch instead', by keyboard; axe finds nothing serious",
    async () => {
      // the second one runs out into the third, whose fetch fails
      await waitForFooterTitle(queued[2]!.title, 30_000)
      const failed = notice().getByText(ERROR_SENTENCES.private)
      await failed.waitFor({ timeout: 30_000 })
      const skip = page.getByRole('button', { name: 'Skip to next' })
      expect(await page.getByRole('button', { name: 'Watch instead' }).isVisible()).toBe(true)
      expect(await axeFindings(page, 'videos, listen mode, failed audio')).toEqual([])
      await shot('listen-failed')
      // the strip covers neither the side navigation's Account link nor the SponsorBlock notice's place
      await expectClearOfStrip()
      await page.setViewportSize(PHONE)
      await expectClearOfStrip()
      await shot('listen-failed-phone')
      await page.setViewportSize(DESKTOP)
      await skip.focus()
      await page.keyboard.press('Enter')
      await waitForFooterTitle(queued[3]!.title)
      await audioPlaying(queued[3]!.id, 0.2)
      expect(await notice().textContent()).toBe('')
      // watched once listening passes 20 s, as with the embed
      const watched = page.waitForResponse((r) => r.url().endsWith(`/videos/${queued[3]!.id}/watch`) && r.request().method() === 'PUT', { timeout: 15_000 })
      await setAudio({ at: 18.5 })
      expect((await watched).status()).toBe(200)
      expect((await audioView())!.currentTime).toBeGreaterThan(20)

      // back to the failed one from the queue: 'Watch instead' plays it in the embed
      await footer().getByRole('button', { name: 'Open queue' }).click()
      const panel = page.getByRole('complementary', { name: 'Queue panel' })
      await panel.getByRole('button', { name: new RegExp(queued[2]!.title) }).click()
      await waitForFooterTitle(queued[2]!.title)
      await failed.waitFor({ timeout: 15_000 })
      await page.getByRole('button', { name: 'Watch instead' }).click()
      expect(await listenSwitch().getAttribute('aria-pressed')).toBe('false')
      await page.waitForFunction(
        (id) => {
          const v = document.querySelector('video[data-player=html5]') as HTMLVideoElement | null
          return !!v && v.currentSrc.includes(`/${id}.webm`) && v.currentTime > 0.2
        },
        queued[2]!.id,
        { timeout: 15_000 },
      )
      expect(await notice().textContent()).toBe('')
      await panel.getByRole('button', { name: 'Close queue' }).last().click()
    },
    { timeout: 90_000 },
  )

  test(
    'the switch is remembered for the account on this device: after a reload the queue plays as audio at once',
    async () => {
      const { id: userId } = await api<{ id: string }>('/api/auth/session')
      const stored = () => page.evaluate((key) => localStorage.getItem(key), `tunefeed:listen:${userId}`)
      // 'Watch instead' turned it off, and that is remembered too
      expect(await stored()).toBeNull()
      await listenSwitch().click()
      expect(await stored()).toBe('on')

      await page.reload()
      await listSettled()
      await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
      await waitForFooterTitle(queued[0]!.title)
      expect(await listenSwitch().getAttribute('aria-pressed')).toBe('true')
      // its audio is cached: it plays without a <video> ever loading
      await audioPlaying(queued[0]!.id, 0.2)
      expect(await page.locator('video').count()).toBe(0)

      // the position is saved (on pause) and resumed, as with the embed
      await setAudio({ at: 4 })
      // reported to the player (every second) before the pause saves it
      await page.waitForFunction(() => /^0:0[4-7]$/.test(document.querySelector('footer [data-testid=played-time]')?.textContent ?? ''))
      const saved = page.waitForResponse((r) => r.url().endsWith(`/videos/${queued[0]!.id}/progress`) && r.request().method() === 'PUT')
      await footer().getByRole('button', { name: 'Pause' }).click()
      await saved
      await page.reload()
      await listSettled()
      await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
      await audioPlaying(queued[0]!.id, 0.2)
      expect((await audioView())!.currentTime).toBeGreaterThanOrEqual(4)
      expect((await audioView())!.currentTime).toBeLessThan(8)

      // touch size: the switch shows on a phone, a target of at least 24 × 24 px
      await page.setViewportSize(PHONE)
      const box = (await listenSwitch().boundingBox())!
      expect(box.width).toBeGreaterThanOrEqual(24)
      expect(box.height).toBeGreaterThanOrEqual(24)
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width)
      expect(await axeFindings(page, 'videos, listen mode, phone')).toEqual([])
      await shot('listen-mode-phone')
      await page.setViewportSize(DESKTOP)
    },
    { timeout: 90_000 },
  )

  test(
    'three queued videos play in a row as audio, the sponsor read in the second one skipped within half a second',
    async () => {
      // the failing one leaves the queue: the first, the second and the fourth play back to back
      expect((await page.request.delete(`/api/youtube/videos/${queued[2]!.id}/queue`)).status()).toBe(200)
      await page.reload()
      await listSettled()
      await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
      await audioPlaying(queued[0]!.id, 0.2)
      await recordSeeks(page, 'audio[data-player=html5]')
      await setAudio({ at: 10 })
      await waitForFooterTitle(queued[1]!.title, 30_000)
      await audioPlaying(queued[1]!.id, 0.1)
      await setAudio({ at: 6.5 })
      const skipped = page.getByRole('status').filter({ hasText: 'Skipped a sponsor segment (0:08)' })
      await skipped.waitFor({ timeout: 30_000 })
      const skip = await until('the skip to the end of the segment', async () =>
        (await seeks(page)).find((s) => s.src.includes(`/videos/${queued[1]!.id}/audio`) && Math.abs(s.to - 10) < 0.3),
      )
      expect(skip.from).toBeGreaterThanOrEqual(7.85)
      expect(skip.from).toBeLessThan(8.5)
      // the third in a row
      await waitForFooterTitle(queued[3]!.title, 30_000)
      await audioPlaying(queued[3]!.id, 0.2)
      expect(await page.locator('video').count()).toBe(0)
      expectOnlyHashPrefixes(sponsorBlock, queued.map((v) => v.id))
    },
    { timeout: 90_000 },
  )
})

noPageErrors()
