import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Browser, type BrowserContext, type BrowserContextOptions, type Page, chromium } from 'playwright-core'
import { type FakeYoutube, type FakeYoutubeOptions, startFakeYoutube } from '../../scripts/fake-youtube.ts'
import { CHROMIUM_PATH } from './browser.ts'
import { adminCommand, createUser, e2eFolders, openLoggedInPage, screenshot } from './e2e.ts'
import { type MusicServices, startMusicServices } from './music-services.ts'
import { type ServerProcess, startServerProcess } from './server-process.ts'
import { ensureWebBuild } from './web-build.ts'
import { until } from './wait.ts'

export { until }

// The video area end to end (tests/e2e/videos-*.test.ts): the built web app in
// Debian's Chromium against the real server process (job queue, WebSocket) and
// the fake YouTube server with its local WebM clips, so the autoplay player
// runs on the HTML5 backend, and the SponsorBlock stand-in (no segments unless a test sets
// them in `sponsorBlock.segments`). Everything listens on 127.0.0.1; nothing leaves
// loopback. Each test file calls setUpVideoArea() once and gets its own fake,
// server, data folder and signed-in page (the bindings below).

const EMAIL = 'videos-e2e@example.com'
const PASSWORD = 'videos-e2e-password'
export const DESKTOP = { width: 1280, height: 800 }
export const PHONE = { width: 390, height: 760 }

export let fake: FakeYoutube
export let sponsorBlock: MusicServices
export let server: ServerProcess
export let browser: Browser
export let context: BrowserContext
export let page: Page
export let workDir: string
/** Uncaught errors and console errors of `page` (see openLoggedInPage). */
export let pageErrors: string[] = []
export let consoleProblems: string[] = []
/** Timings for the closing note (printed at the end). */
export const perf: Record<string, unknown> = {}

/** Registers the file's set-up (a signed-in page on a fresh server) and tear-down. */
export function setUpVideoArea(
  opts: {
    fake?: FakeYoutubeOptions
    directMedia?: boolean
    /** More server environment, made once the fake runs (its video ids known). */
    env?: (fake: FakeYoutube) => Promise<Record<string, string>>
    /** More browser context options (`bypassCSP` for axe-core: tests/support/axe.ts). */
    context?: BrowserContextOptions
    /** The page's context skips the CSP (axe-core is injected: tests/support/axe.ts). */
    bypassCSP?: boolean
  } = {},
) {
  let folders: ReturnType<typeof e2eFolders> | undefined
  beforeAll(async () => {
    for (const key of Object.keys(perf)) delete perf[key]
    folders = e2eFolders('videos-e2e')
    workDir = folders.workDir
    const dataDir = folders.dataDir
    ;[fake, sponsorBlock] = await Promise.all([startFakeYoutube({ port: 0, hostname: '127.0.0.1', media: true, ...opts.fake }), startMusicServices(), ensureWebBuild()])

    await createUser(dataDir, EMAIL, PASSWORD)
    // the category names (the scheduler does this daily; the 'Categories' filter shows once they exist)
    await adminCommand(['youtube-refresh-categories'], { DATA_DIR: dataDir, ...fake.env })

    // without direct media (production-like) videos play through the IFrame Player API stand-in
    const { YOUTUBE_MEDIA_URL, ...youtubeEnv } = fake.env
    const env = {
      ...youtubeEnv,
      ...(opts.directMedia === false ? {} : { YOUTUBE_MEDIA_URL: YOUTUBE_MEDIA_URL! }),
      SPONSORBLOCK_URL: sponsorBlock.sbUrl,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      ...(await opts.env?.(fake)),
    }
    ;[server, browser] = await Promise.all([
      startServerProcess({ DATA_DIR: dataDir, ...env, YOUTUBE_RETRY_BASE_MS: '1', RATE_LIMIT_MAX: '1000' }),
      chromium.launch({
        executablePath: CHROMIUM_PATH,
        args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--autoplay-policy=no-user-gesture-required'],
        headless: true,
      }),
    ])
    const watched = await openLoggedInPage(
      browser,
      { ...opts.context, baseURL: server.url, viewport: DESKTOP, ...(opts.bypassCSP ? { bypassCSP: true } : {}) },
      { email: EMAIL, password: PASSWORD },
    )
    ;({ context, page, pageErrors, consoleProblems } = watched)
  }, 240_000)

  afterAll(async () => {
    if (Object.keys(perf).length) console.log('video area performance:', JSON.stringify(perf, null, 2))
    await context?.close()
    await browser?.close()
    await server?.stop()
    await fake?.stop()
    await sponsorBlock?.stop()
    folders?.remove()
  })
}

/** The closing test of a file: nothing went wrong on the page meanwhile. */
export function noPageErrors() {
  test('no page errors', () => {
    expect(pageErrors).toEqual([])
    expect(consoleProblems).toEqual([])
  })
}

// --- helpers ------------------------------------------------------------------

export const cards = () => page.locator('article[data-video-id]')
export const card = (id: string) => page.locator(`article[data-video-id="${id}"]`)
export const footer = () => page.locator('footer')
export const progressSlider = () => footer().getByRole('slider', { name: 'Progress' })
export const search = () => new URL(page.url()).searchParams

export async function shot(name: string, target: Page = page) {
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
  await screenshot(target, name)
}

export async function api<T>(path: string): Promise<T> {
  const res = await page.request.get(path)
  if (!res.ok()) throw new Error(`${path}: ${res.status()} ${await res.text()}`)
  return (await res.json()) as T
}

export type VideoJson = {
  id: string
  title: string
  liked: string | null
  queued: string | null
  watched: string | null
  category: { name: string }
  channel: { title: string }
}


/** Subscribes through the API; returns the channel id (its first refresh runs on). */
export async function subscribe(handle: string): Promise<string> {
  const res = await page.request.put(`/api/youtube/subscriptions/user?channel_id=${encodeURIComponent(handle)}`)
  expect(res.status()).toBe(200)
  return ((await res.json()) as { id: string }).id
}

/** Subscribes through the API and waits until the channel's first refresh has stored its videos. */
export async function subscribeAndWait(handle: string, minVideos: number) {
  const id = await subscribe(handle)
  await until(`${handle} refreshed`, async () => {
    const channel = await api<{ updating: boolean }>(`/api/youtube/channels/${id}`)
    const list = await api<{ totalPages: number }>(`/api/youtube/videos/list?channel_id=${id}&per_page=1`)
    return !channel.updating && list.totalPages >= minVideos
  }, 60_000)
  return id
}

/** The list finished loading (no fetch in flight). */
export async function listSettled() {
  await page.locator('section[aria-label="Video list"][aria-busy=false]').waitFor()
}

/** Title of the video the footer player holds. */
export async function footerTitle(): Promise<string> {
  return (await footer().getByRole('link', { name: /^Video: / }).getAttribute('title')) ?? ''
}

export async function waitForFooterTitle(title: string, timeout = 20_000) {
  await page.waitForFunction(
    (t) => document.querySelector('footer a[aria-label^="Video: "]')?.getAttribute('title') === t,
    title,
    { timeout },
  )
}

/** Waits until the HTML5 player holds this video's clip (its metadata read). */
export async function clipLoaded(id: string, target: Page = page) {
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
export async function setClip(opts: { rate?: number; defaultRate?: number; at?: number | 'end' }, target: Page = page) {
  await target.evaluate((o) => {
    const v = document.querySelector('video[data-player=html5]') as HTMLVideoElement
    if (o.defaultRate !== undefined) v.defaultPlaybackRate = o.defaultRate
    if (o.rate !== undefined) v.playbackRate = o.rate
    if (o.at !== undefined) v.currentTime = o.at === 'end' ? v.duration - 0.3 : o.at
  }, opts)
}

export async function videoTime(): Promise<number> {
  return page.evaluate(() => (document.querySelector('video[data-player=html5]') as HTMLVideoElement | null)?.currentTime ?? -1)
}
