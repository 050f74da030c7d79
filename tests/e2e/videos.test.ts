import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core'
import { type FakeYoutube, startFakeYoutube } from '../../scripts/fake-youtube.ts'
import { CHROMIUM_PATH } from '../support/browser.ts'
import { REPO_ROOT, run, type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// The video area end to end: the built web app in Debian's Chromium against
// the real server process (job queue, WebSocket) and the fake YouTube server
// with its local WebM clips, so the autoplay player runs on the HTML5
// backend. Everything listens on 127.0.0.1; nothing leaves loopback.

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots')
const EMAIL = 'videos-e2e@example.com'
const PASSWORD = 'videos-e2e-password'
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 760 }

let fake: FakeYoutube
let server: ServerProcess
let browser: Browser
let context: BrowserContext
let page: Page
let dataDir: string
let workDir: string
const pageErrors: string[] = []
const consoleProblems: string[] = []
/** Timings for the closing note (printed at the end). */
const perf: Record<string, unknown> = {}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-videos-e2e-'))
  workDir = mkdtempSync(join(tmpdir(), 'tunefeed-videos-e2e-files-'))
  ;[fake] = await Promise.all([startFakeYoutube({ port: 0, hostname: '127.0.0.1', media: true }), ensureWebBuild()])

  // a verified account, made on the data folder before the server holds its lock
  const created = await run([process.execPath, 'scripts/admin.ts', 'create-user', EMAIL, PASSWORD], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, 120_000)
  if (created.code !== 0) throw new Error(`create-user failed: ${created.stdout}\n${created.stderr}`)
  // the category names (the scheduler does this daily; the 'Categories' filter shows once they exist)
  const categories = await run([process.execPath, 'scripts/admin.ts', 'youtube-refresh-categories'], { DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...fake.env }, 120_000)
  if (categories.code !== 0) throw new Error(`youtube-refresh-categories failed: ${categories.stdout}\n${categories.stderr}`)

  ;[server, browser] = await Promise.all([
    startServerProcess({ DATA_DIR: dataDir, ...fake.env, YOUTUBE_RETRY_BASE_MS: '1', RATE_LIMIT_MAX: '1000' }),
    chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--autoplay-policy=no-user-gesture-required'],
      headless: true,
    }),
  ])
  context = await browser.newContext({ baseURL: server.url, viewport: DESKTOP })
  page = await context.newPage()
  page.on('pageerror', (err) => pageErrors.push(err.message))
  page.on('console', (msg) => {
    // 4xx answers the page expects (an unknown handle, a missing user channel) are logged as resource errors
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) consoleProblems.push(msg.text())
  })
  // never let the page reach past loopback (the YouTube IFrame API, fonts, anything)
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/]|\[::1\])/, (route) => route.abort())

  await page.goto('/login')
  await page.getByLabel('Email').fill(EMAIL)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Submit' }).click()
  await page.waitForURL((url) => url.pathname === '/music/downloader')
}, 240_000)

afterAll(async () => {
  if (Object.keys(perf).length) console.log('video area performance:', JSON.stringify(perf, null, 2))
  await context?.close()
  await browser?.close()
  await server?.stop()
  await fake?.stop()
  for (const dir of [dataDir, workDir]) if (dir) rmSync(dir, { recursive: true, force: true })
})

// --- helpers ------------------------------------------------------------------

const cards = () => page.locator('article[data-video-id]')
const card = (id: string) => page.locator(`article[data-video-id="${id}"]`)
const footer = () => page.locator('footer')
const progressSlider = () => footer().getByRole('slider', { name: 'Progress' })
const html5Video = () => page.locator('video[data-player=html5]')
const search = () => new URL(page.url()).searchParams
const where = () => {
  const url = new URL(page.url())
  return url.pathname + url.search
}

async function shot(name: string, target: Page = page) {
  // the thumbnails in view have loaded (lazy ones further down have not started)
  await target
    .waitForFunction(
      () =>
        [...document.images]
          .filter((img) => {
            const r = img.getBoundingClientRect()
            return r.bottom > 0 && r.top < innerHeight && r.width > 0
          })
          .every((img) => img.complete),
      null,
      { timeout: 10_000 },
    )
    .catch(() => {})
  await target.waitForTimeout(400) // transitions and tooltips settle
  await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`) })
}

async function api<T>(path: string): Promise<T> {
  const res = await page.request.get(path)
  if (!res.ok()) throw new Error(`${path}: ${res.status()} ${await res.text()}`)
  return (await res.json()) as T
}

type VideoJson = {
  id: string
  title: string
  liked: string | null
  queued: string | null
  watched: string | null
  category: { name: string }
  channel: { title: string }
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeout = 30_000): Promise<T> {
  const end = Date.now() + timeout
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(150)
  }
}

/** Subscribes through the API and waits until the channel's first refresh has stored its videos. */
async function subscribeAndWait(handle: string, minVideos: number) {
  const res = await page.request.put(`/api/youtube/subscriptions/user?channel_id=${encodeURIComponent(handle)}`)
  expect(res.status()).toBe(200)
  const { id } = (await res.json()) as { id: string }
  await until(`${handle} refreshed`, async () => {
    const channel = await api<{ updating: boolean }>(`/api/youtube/channels/${id}`)
    const list = await api<{ totalPages: number }>(`/api/youtube/videos/list?channel_id=${id}&per_page=1`)
    return !channel.updating && list.totalPages >= minVideos
  }, 60_000)
  return id
}

/** The list finished loading (no fetch in flight). */
async function listSettled() {
  await page.locator('section[aria-label="Video list"][aria-busy=false]').waitFor()
}

/** Title of the video the footer player holds. */
async function footerTitle(): Promise<string> {
  return (await footer().getByRole('link', { name: /^Video: / }).getAttribute('title')) ?? ''
}

async function waitForFooterTitle(title: string, timeout = 20_000) {
  await page.waitForFunction(
    (t) => document.querySelector('footer a[aria-label^="Video: "]')?.getAttribute('title') === t,
    title,
    { timeout },
  )
}

/** Waits until the HTML5 player holds this video's clip (its metadata read). */
async function clipLoaded(id: string, target: Page = page) {
  await target.waitForFunction(
    (vid) => {
      const v = document.querySelector('video[data-player=html5]') as HTMLVideoElement | null
      return !!v && v.currentSrc.includes(`/${vid}.webm`) && v.readyState >= 1
    },
    id,
    { timeout: 15_000 },
  )
}

/** Changes the playing clip: rate, and/or the position (seconds, or `end` for 0.3 s before its end). */
async function setClip(opts: { rate?: number; defaultRate?: number; at?: number | 'end' }, target: Page = page) {
  await target.evaluate((o) => {
    const v = document.querySelector('video[data-player=html5]') as HTMLVideoElement
    if (o.defaultRate !== undefined) v.defaultPlaybackRate = o.defaultRate
    if (o.rate !== undefined) v.playbackRate = o.rate
    if (o.at !== undefined) v.currentTime = o.at === 'end' ? v.duration - 0.3 : o.at
  }, opts)
}

async function videoTime(): Promise<number> {
  return page.evaluate(() => (document.querySelector('video[data-player=html5]') as HTMLVideoElement | null)?.currentTime ?? -1)
}

// --- the tests -------------------------------------------------------------------

describe('video area in the browser', () => {
  let tinyKitchen: string

  test(
    'subscribe by @handle in the Update Subscriptions modal and watch the channel fill in live',
    async () => {
      await page.getByRole('link', { name: 'Subscriptions' }).click()
      await page.waitForURL((url) => url.pathname === '/youtube/subscriptions')
      await page.getByText('No subscriptions yet').waitFor()
      await page.waitForFunction(() => document.title === 'Subscriptions | Tunefeed')

      await page.getByRole('button', { name: 'Update Subscriptions' }).click()
      const dialog = page.getByRole('dialog', { name: 'Update Subscriptions' })
      await dialog.waitFor()
      expect(await dialog.getByRole('tab', { name: 'Subscriptions' }).getAttribute('aria-selected')).toBe('true')
      expect(await dialog.getByRole('tab', { name: 'User Channel' }).isVisible()).toBe(true)

      // an unknown handle: the error beside the form, the input keeps what was typed
      const input = dialog.getByLabel('Channel ID or Handle')
      await input.fill('@no-such-channel-here')
      await dialog.getByRole('button', { name: 'Subscribe' }).click()
      await dialog.getByRole('alert').filter({ hasText: 'Channel not found.' }).waitFor()
      expect(await input.inputValue()).toBe('@no-such-channel-here')

      // slow YouTube down so the refresh that follows stays visible for a few seconds
      fake.latencyMs = 2500
      await input.fill('@tiny-kitchen')
      const subscribe = dialog.getByRole('button', { name: 'Subscribe' })
      await subscribe.click()
      await dialog.locator('button[type=submit][aria-busy=true]').waitFor() // loading while pending
      await dialog.getByText('Added Subscription Successfully').waitFor()
      expect(await input.inputValue()).toBe('') // cleared after success
      await shot('subscriptions-dialog')
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'hidden' })

      // the card is there, and the channel page shows the refresh running, then its videos
      const tile = page.getByRole('article', { name: 'Tiny Kitchen' })
      await tile.waitFor()
      await tile.getByRole('link', { name: 'Tiny Kitchen' }).click()
      await page.waitForURL((url) => url.pathname.startsWith('/youtube/channel/'))
      tinyKitchen = page.url().split('/').pop()!.split('?')[0]!
      expect(tinyKitchen).toBe(fake.channel('@tiny-kitchen').id)
      await page.getByRole('heading', { name: 'Tiny Kitchen', level: 1 }).waitFor()
      await page.getByText('Retrieving latest videos...').waitFor({ timeout: 15_000 })
      await page.getByText('Retrieving latest videos...').waitFor({ state: 'hidden', timeout: 60_000 })
      fake.latencyMs = 0
      // no reload: the socket said the refresh ended and the list refreshed itself
      await page.waitForFunction(() => document.querySelectorAll('article[data-video-id]').length === 12, null, { timeout: 15_000 })
      await page.waitForFunction(() => document.title === 'Tiny Kitchen | Tunefeed')
      expect(await page.getByRole('button', { name: 'Unsubscribe' }).isVisible()).toBe(true)
      expect(await page.getByRole('button', { name: 'Enable AutoPlay' }).isVisible()).toBe(true)
      await shot('channel')
    },
    { timeout: 120_000 },
  )

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
      await page.goto('/youtube/channel/UCAAAAAAAAAAAAAAAAAAAAAA')
      await page.getByText('Channel could not be loaded').waitFor()
    },
    { timeout: 60_000 },
  )

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

  test(
    'subscriptions: import a Takeout file, connect the user channel, unsubscribe through the confirmation',
    async () => {
      await page.goto('/youtube/subscriptions')
      await page.getByRole('article', { name: 'Lofi Garden' }).waitFor()
      await page.getByRole('button', { name: 'Update Subscriptions' }).click()
      const dialog = page.getByRole('dialog', { name: 'Update Subscriptions' })

      // import: two known channels (one already subscribed) and one unknown
      const file = join(workDir, 'subscriptions.csv')
      const star = fake.channel('@star-lab')
      const tiny = fake.channel('@tiny-kitchen')
      writeFileSync(
        file,
        [
          'Channel Id,Channel Url,Channel Title',
          `${star.id},http://www.youtube.com/channel/${star.id},${star.title}`,
          `${tiny.id},http://www.youtube.com/channel/${tiny.id},${tiny.title}`,
          'UCzzzzzzzzzzzzzzzzzzzzzz,http://www.youtube.com/channel/UCzzzzzzzzzzzzzzzzzzzzzz,Gone',
        ].join('\n'),
      )
      await dialog.getByLabel('Import from a file').setInputFiles(file)
      await dialog.getByRole('button', { name: 'Import', exact: true }).click()
      await dialog.getByText('Google Takeout CSV: 1 added, 1 already subscribed, 1 not found.').waitFor()

      // the User Channel tab
      await dialog.getByRole('tab', { name: 'User Channel' }).click()
      const current = dialog.getByLabel('Current Channel ID')
      expect(await current.getAttribute('readonly')).not.toBeNull()
      expect(await current.inputValue()).toBe('')
      await dialog.getByLabel(/^Channel ID\*?$/).fill('@viewer-empty')
      await dialog.getByRole('button', { name: 'Update' }).click()
      await dialog.getByText('Updated Channel Successfully').waitFor()
      expect(await dialog.getByLabel(/^Channel ID\*?$/).inputValue()).toBe('')
      await until('current channel id', async () => (await current.inputValue()) === fake.channel('@viewer-empty').id)
      // changing it again within 24 hours is refused, with the server's words
      await dialog.getByLabel(/^Channel ID\*?$/).fill('@viewer-alice')
      await dialog.getByRole('button', { name: 'Update' }).click()
      await dialog.getByRole('alert').filter({ hasText: 'Must wait 24 hours before updating channel id.' }).waitFor()
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'hidden' })

      await page.getByRole('article', { name: 'Star Lab' }).waitFor()
      await page.mouse.move(5, 500)
      await shot('subscriptions')

      // unsubscribe: the control shows on hover; Cancel keeps it, Confirm removes it
      const tile = page.getByRole('article', { name: 'Tiny Kitchen' })
      await tile.hover()
      await tile.getByRole('button', { name: 'Unsubscribe from Tiny Kitchen' }).click()
      const confirm = page.getByRole('alertdialog', { name: 'Confirm Remove Subscription' })
      await confirm.getByText('Tiny Kitchen').waitFor()
      await shot('subscriptions-unsubscribe')
      await confirm.getByRole('button', { name: 'Cancel' }).click()
      await confirm.waitFor({ state: 'hidden' })
      expect(await tile.isVisible()).toBe(true)
      await tile.hover()
      await tile.getByRole('button', { name: 'Unsubscribe from Tiny Kitchen' }).click()
      await confirm.getByRole('button', { name: 'Confirm' }).click()
      await tile.waitFor({ state: 'hidden' })
      const list = await api<{ channels: { id: string }[] }>('/api/youtube/subscriptions/list')
      expect(list.channels.map((c) => c.id)).not.toContain(tinyKitchen)
    },
    { timeout: 90_000 },
  )

  test(
    'small screens: navigation behind the burger, the queue panel and some buttons hidden',
    async () => {
      // a phone: small, touch, no hover
      const touch = await browser.newContext({
        baseURL: server.url,
        viewport: PHONE,
        isMobile: true,
        hasTouch: true,
        storageState: await context.storageState(),
      })
      await touch.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/]|\[::1\])/, (route) => route.abort())
      const phone = await touch.newPage()
      phone.on('pageerror', (err) => pageErrors.push(err.message))
      await phone.goto('/youtube/videos')
      await phone.locator('article[data-video-id]').first().waitFor()
      // on touch screens the overlay and the card controls always show; a tap opens a tooltip
      const firstCard = phone.locator('article[data-video-id]').first()
      expect(await firstCard.locator('a[aria-label^="Play "]').evaluate((e) => getComputedStyle(e).opacity)).toBe('1')
      expect(await firstCard.getByRole('button', { name: /^(Queue|Unqueue)$/ }).evaluate((e) => getComputedStyle(e).opacity)).toBe('1')
      const category = firstCard.locator('[role=img][data-tooltip]').last()
      const categoryName = (await category.getAttribute('data-tooltip'))!
      await category.tap()
      await phone.getByRole('tooltip').filter({ hasText: categoryName }).waitFor()
      expect(await phone.getByRole('link', { name: 'Subscriptions' }).isVisible()).toBe(false)
      expect(await phone.getByRole('button', { name: 'Open navigation' }).isVisible()).toBe(true)
      // one card a row
      const [a, b] = await phone.locator('article[data-video-id]').evaluateAll((els) => els.slice(0, 2).map((e) => e.getBoundingClientRect().top))
      expect(b!).toBeGreaterThan(a!)
      await phone.getByRole('button', { name: 'Enable AutoPlay' }).click()
      await phone.locator('footer').getByRole('slider', { name: 'Progress' }).waitFor()
      await phone.waitForFunction(() => !!document.querySelector('footer a[aria-label^="Video: "]'))
      expect(await phone.locator('footer').getByRole('button', { name: 'Open queue' }).isVisible()).toBe(false)
      expect(await phone.locator('footer').getByRole('button', { name: 'Previous video' }).isVisible()).toBe(false)
      expect(await phone.locator('footer').getByRole('button', { name: 'Next video' }).isVisible()).toBe(true)
      const panel = (await phone.locator('#queue-panel').boundingBox())!
      expect(panel.x).toBeGreaterThanOrEqual(PHONE.width - 1) // slid out of view, still holding the player
      await shot('videos-mobile', phone)
      await phone.getByRole('button', { name: 'Stop AutoPlay' }).click()

      const first = await phone.locator('article[data-video-id]').first().getAttribute('data-video-id')
      await phone.goto(`/youtube/video/${first}`)
      await phone.getByRole('heading', { name: 'Related Videos' }).waitFor()
      await shot('video-mobile', phone)
      await phone.goto(`/youtube/channel/${fake.channel('@lofi-garden').id}`)
      await phone.locator('article[data-video-id]').first().waitFor()
      await shot('channel-mobile', phone)
      await phone.goto('/youtube/subscriptions')
      await phone.getByRole('article', { name: 'Lofi Garden' }).waitFor()
      const unsubscribe = phone.getByRole('button', { name: 'Unsubscribe from Lofi Garden' })
      expect(await unsubscribe.evaluate((e) => getComputedStyle(e).opacity)).toBe('1')
      await shot('subscriptions-mobile', phone)
      await touch.close()
    },
    { timeout: 90_000 },
  )

  test(
    'performance: first-paint JavaScript, time to a painted 48-card grid, no long tasks while autoplay advances',
    async () => {
      // JavaScript fetched before the first contentful paint of /youtube/videos (compressed sizes)
      const fresh = await browser.newContext({ baseURL: server.url, viewport: DESKTOP, storageState: await context.storageState() })
      const p = await fresh.newPage()
      await p.goto('/youtube/videos')
      await p.locator('article[data-video-id]').nth(47).waitFor()
      const js = await p.evaluate(() => {
        const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Infinity
        const scripts = performance
          .getEntriesByType('resource')
          .filter((e) => (e as PerformanceResourceTiming).initiatorType === 'script' || e.name.endsWith('.js'))
          .map((e) => e as PerformanceResourceTiming)
        const before = scripts.filter((e) => e.startTime < fcp)
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming
        return {
          fcpMs: Math.round(fcp),
          beforeFcpGzipKB: Math.round(before.reduce((n, e) => n + e.encodedBodySize, 0) / 102.4) / 10,
          allJsGzipKB: Math.round(scripts.reduce((n, e) => n + e.encodedBodySize, 0) / 102.4) / 10,
          files: before.length,
          htmlMs: Math.round(nav.responseEnd),
        }
      })
      perf.firstPaintJs = js
      // the target is 200 KB; about 173 KB of it is the shell every page loads before any route: a regression guard
      expect(js.beforeFcpGzipKB).toBeLessThan(220)

      // navigation (client side, from Subscriptions) to 48 cards painted, data from the fake server; median of 10
      const times: number[] = []
      for (let i = 1; i <= 10; i++) {
        await p.goto('/youtube/subscriptions')
        await p.getByRole('article').first().waitFor()
        const ms = await p.evaluate(async (n) => {
          // a page not in the cache yet, so each run waits for a real request
          const url = `/youtube/videos?page=${(n % 3) + 1}&perPage=${48 + n}`
          const start = performance.now()
          history.pushState(history.state, '', url)
          dispatchEvent(new PopStateEvent('popstate', { state: history.state }))
          await new Promise<void>((resolve) => {
            const check = () => {
              if (location.pathname === '/youtube/videos' && document.querySelectorAll('article[data-video-id]').length >= 48) resolve()
              else requestAnimationFrame(check)
            }
            check()
          })
          // the frame that shows them
          await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
          return performance.now() - start
        }, i)
        times.push(Math.round(ms))
      }
      times.sort((x, y) => x - y)
      const gridMedian = (times[4]! + times[5]!) / 2
      perf.gridMs = { median: gridMedian, all: times }
      // target 300 ms on an idle machine; the suite shares two cores with other work, so guard loosely
      expect(gridMedian).toBeLessThan(1000)

      // a full page load of /youtube/videos to 48 cards painted (session check, code and data), median of 10
      const loads: number[] = []
      for (let i = 1; i <= 10; i++) {
        await p.goto(`/youtube/videos?page=${(i % 4) + 1}`)
        await p.locator('article[data-video-id]').nth(47).waitFor()
        loads.push(Math.round(await p.evaluate(() => performance.now())))
      }
      loads.sort((x, y) => x - y)
      perf.pageLoadMs = { median: (loads[4]! + loads[5]!) / 2, all: loads }

      // long tasks while autoplay advances through several clips
      await p.goto('/youtube/videos')
      await p.locator('article[data-video-id]').nth(47).waitFor()
      await p.evaluate(() => {
        ;(window as unknown as { __long: number[] }).__long = []
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) (window as unknown as { __long: number[] }).__long.push(Math.round(e.duration))
        }).observe({ type: 'longtask' })
      })
      await p.getByRole('button', { name: 'Enable AutoPlay' }).click()
      await p.locator('video[data-player=html5]').waitFor({ state: 'attached' })
      const titles: string[] = []
      for (let i = 0; i < 4; i++) {
        const link = p.locator('footer a[aria-label^="Video: "]')
        await link.waitFor()
        const t = (await link.getAttribute('title')) ?? ''
        titles.push(t)
        const id = ((await link.getAttribute('href')) ?? '').split('/').pop()!
        await clipLoaded(id, p)
        await setClip({ at: 'end' }, p)
        await p.waitForFunction((prev) => {
          const now = document.querySelector('footer a[aria-label^="Video: "]')?.getAttribute('title')
          return now && now !== prev
        }, t, { timeout: 15_000 })
      }
      const longTasks = await p.evaluate(() => (window as unknown as { __long: number[] }).__long)
      perf.autoplayLongTasks = { advanced: titles.length, longTasksMs: longTasks }
      expect(new Set(titles).size).toBe(4)
      expect(Math.max(0, ...longTasks)).toBeLessThan(200)
      await fresh.close()
    },
    { timeout: 180_000 },
  )

  test('no page errors', () => {
    expect(pageErrors).toEqual([])
    expect(consoleProblems).toEqual([])
  })
})
