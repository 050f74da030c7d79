import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { type FakeYoutube, startFakeYoutube } from '../../scripts/fake-youtube.ts'
import { watchUrl } from '../../src/youtube/listen/audio.ts'
import { axeFindings } from '../support/axe.ts'
import { launchBrowser } from '../support/browser.ts'
import { adminCommand, createUser, e2eFolders, SCREENSHOTS } from '../support/e2e.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../support/fake-ytdlp.ts'
import { makeTone, startMediaServer, type MediaServer } from '../support/media.ts'
import { startMusicServices, type MusicServices } from '../support/music-services.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { until } from '../support/wait.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// Channels as private podcasts in the browser (issue 27): the switch on the channel page (by
// keyboard), the subscriptions card, the Account page's Podcasts tab (feed addresses, copy, OPML,
// new addresses with a confirmation); axe-core finds nothing serious on these pages. Episodes
// come from the stand-in yt-dlp (a tone on the loopback media server) and SponsorBlock stand-in.

const EMAIL = 'podcasts-e2e@example.com'
const PASSWORD = 'podcasts-e2e-password'
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 760 }

let fake: FakeYoutube
let media: MediaServer
let sb: MusicServices
let ytdlp: FakeYtdlp
let server: ServerProcess
let browser: Browser
let context: BrowserContext
let page: Page
let folders: ReturnType<typeof e2eFolders>
let channelId: string
let failing: { id: string; uploads: string[] }
const pageErrors: string[] = []

beforeAll(async () => {
  folders = e2eFolders('podcasts-e2e')
  const { dataDir, workDir } = folders
  const tone = join(workDir, 'tone.mp3')
  ;[fake, media, sb] = await Promise.all([
    startFakeYoutube({ port: 0, hostname: '127.0.0.1', media: false, now: new Date('2026-01-15T12:00:00Z') }),
    startMediaServer(),
    startMusicServices(),
    makeTone(tone, 3),
    ensureWebBuild(),
  ])
  media.addFile('tone.mp3', tone)
  const uploads = fake.channel('@tiny-kitchen').uploads
  channelId = fake.channel('@tiny-kitchen').id
  // @star-lab's videos are private at first (YouTube's real text), for the failed episodes' test
  failing = fake.channel('@star-lab')
  ytdlp = startFakeYtdlp({
    urls: Object.fromEntries([
      ...uploads.map((id) => [watchUrl(id), `${media.url}/files/tone.mp3`]),
      ...failing.uploads.map((id) => [watchUrl(id), 'http://127.0.0.1:9/fail/private']),
    ]),
  })
  await createUser(dataDir, EMAIL, PASSWORD)
  await adminCommand(['youtube-refresh-categories'], { DATA_DIR: dataDir, ...fake.env })
  ;[server, browser] = await Promise.all([
    startServerProcess({
      DATA_DIR: dataDir,
      ...fake.env,
      YOUTUBE_RETRY_BASE_MS: '1',
      RATE_LIMIT_MAX: '1000',
      YTDLP_PATH: ytdlp.path,
      YTDLP_SLEEP_SECONDS: '0',
      SPONSORBLOCK_URL: sb.sbUrl,
      // the stand-ins on loopback; www.youtube.com by name (the guard does not resolve it, nothing fetches it)
      FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com',
    }),
    launchBrowser(),
  ])
  // bypassCSP: the app's script-src refuses the injected axe-core script (the policy itself is tested elsewhere)
  context = await browser.newContext({ baseURL: server.url, viewport: DESKTOP, bypassCSP: true })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
  // nothing leaves loopback
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/]|\[::1\])/, (route) => route.abort())
  page = await context.newPage()
  page.on('pageerror', (err) => pageErrors.push(err.message))
  await page.goto('/login')
  await page.getByLabel('Email').fill(EMAIL)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Submit' }).click()
  await page.waitForURL((url) => url.pathname === '/music/downloader')
  expect((await page.request.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status()).toBe(200)
  await until('channel refreshed', async () => !((await (await page.request.get(`/api/youtube/channels/${channelId}`)).json()) as { updating: boolean }).updating, 60_000)
}, 240_000)

afterAll(async () => {
  await context?.close()
  await browser?.close()
  await server?.stop()
  await sb?.stop()
  await media?.stop()
  await fake?.stop()
  ytdlp?.stop()
  folders?.remove()
})

async function shot(name: string) {
  await page.waitForTimeout(400) // transitions settle
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) })
}

type Podcasts = { feeds: { channelId: string; url: string; episodes: number; keepLast: number; failed: number }[]; allUrl: string; opmlUrl: string }
const podcasts = async () => (await (await page.request.get('/api/youtube/podcasts')).json()) as Podcasts

describe('podcasts in the browser', () => {
  test(
    'the channel page: keep the last 2, the switch turned on by keyboard, episodes counted as they are made',
    async () => {
      await page.goto(`/youtube/channel/${channelId}`)
      await page.getByRole('heading', { name: 'Tiny Kitchen', level: 1 }).waitFor()
      const keep = page.getByRole('spinbutton', { name: 'Keep the last' })
      await keep.waitFor()
      expect(await keep.inputValue()).toBe('10')
      await page.getByText("Turn it on to listen to the newest videos in a podcast app").waitFor()
      // a number out of range is said in words
      await keep.fill('0')
      await keep.press('Tab')
      await page.getByRole('alert').filter({ hasText: 'Enter a whole number from 1 to 100.' }).waitFor()
      expect(await keep.getAttribute('aria-invalid')).toBe('true')
      await keep.fill('2')
      await keep.press('Tab')
      expect(await page.getByText('Enter a whole number from 1 to 100.').count()).toBe(0)

      // the switch, by keyboard
      const toggle = page.getByRole('checkbox', { name: 'Podcast' })
      expect(await toggle.isChecked()).toBe(false)
      await toggle.focus()
      await page.keyboard.press('Space')
      await until('the switch on', () => toggle.isChecked(), 15_000)
      await page.getByText('of 2 episodes ready').waitFor({ timeout: 15_000 })
      await page.getByText('2 of 2 episodes ready.').waitFor({ timeout: 60_000 })
      expect((await podcasts()).feeds).toEqual([expect.objectContaining({ channelId, episodes: 2, keepLast: 2 })])
      await page.getByRole('link', { name: 'Account page, under Podcasts' }).waitFor()
      expect(await axeFindings(page, 'channel page with podcast')).toEqual([])
      await shot('channel-podcast')
    },
    { timeout: 120_000 },
  )

  test(
    'the subscriptions card shows the switch on, with its count',
    async () => {
      await page.goto('/youtube/subscriptions')
      const tile = page.getByRole('article', { name: 'Tiny Kitchen' })
      await tile.waitFor()
      const toggle = tile.getByRole('checkbox', { name: 'Podcast of Tiny Kitchen' })
      await toggle.waitFor({ state: 'attached' })
      // on once the feeds list has arrived (the card may show before it)
      await until('the switch shows on', () => toggle.isChecked())
      await tile.getByText('2 of 2 episodes ready.').waitFor()
      expect(await tile.getByRole('spinbutton', { name: 'Keep the last videos of Tiny Kitchen as episodes' }).inputValue()).toBe('2')
      expect(await axeFindings(page, 'subscriptions with podcast')).toEqual([])
      await shot('subscriptions-podcast')
    },
    { timeout: 60_000 },
  )

  test(
    'the Account page lists the feed with a copy button and the OPML link; new addresses after a confirmation',
    async () => {
      await page.goto('/account?tab=podcasts')
      const before = await podcasts()
      const field = page.getByRole('textbox', { name: 'Tiny Kitchen: 2 of 2 episodes ready.' })
      await field.waitFor()
      expect(await field.inputValue()).toBe(before.feeds[0]!.url)
      expect(await page.getByRole('textbox', { name: 'All your podcasts in one feed' }).inputValue()).toBe(before.allUrl)
      expect(await page.getByRole('link', { name: 'Download the OPML file' }).getAttribute('href')).toBe(before.opmlUrl)
      // every tab on one row at 1280 px (Legal not alone on a second), none cut off
      const list = (await page.getByRole('tablist').boundingBox())!
      const rows = new Set<number>()
      for (const name of ['Account', 'WebDAV', 'API Tokens', 'Music Players', 'Podcasts', 'Notifications', 'SponsorBlock', 'Legal']) {
        const tab = (await page.getByRole('tab', { name, exact: true }).boundingBox())!
        expect(tab.x + tab.width).toBeLessThanOrEqual(list.x + list.width + 1)
        expect(tab.y).toBeLessThan(list.y + list.height)
        rows.add(Math.round(tab.y))
      }
      expect(rows.size).toBe(1)
      // the feed answers without a cookie, as a podcast app fetches it
      expect((await fetch(before.feeds[0]!.url)).status).toBe(200)

      const copy = page.getByRole('listitem').filter({ has: field }).getByRole('button', { name: /^(Copy|Copied) / })
      await copy.click()
      await until('copied', async () => (await copy.textContent())?.includes('Copied'), 10_000)
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(before.feeds[0]!.url)
      expect(await axeFindings(page, 'account podcasts')).toEqual([])
      await shot('account-podcasts')

      // new addresses: a confirmation that says the old ones stop working, Cancel keeps them
      await page.getByRole('button', { name: 'Make New Addresses' }).click()
      const dialog = page.getByRole('alertdialog', { name: 'Make new feed addresses?' })
      await dialog.waitFor()
      await dialog.getByText('stops working at once').waitFor()
      expect(await axeFindings(page, 'account podcasts: confirmation')).toEqual([])
      await shot('account-podcasts-rotate')
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'hidden' })
      expect((await podcasts()).allUrl).toBe(before.allUrl)

      await page.getByRole('button', { name: 'Make New Addresses' }).click()
      await dialog.getByRole('button', { name: 'Make New Addresses' }).click()
      await dialog.waitFor({ state: 'hidden' })
      await page.getByText('New addresses made. The old ones no longer work').waitFor()
      const after = await podcasts()
      expect(after.allUrl).not.toBe(before.allUrl)
      expect(await field.inputValue()).toBe(after.feeds[0]!.url)
      // every old address is gone at once, the new ones work
      for (const url of [before.feeds[0]!.url, before.allUrl, before.opmlUrl]) expect((await fetch(url)).status).toBe(404)
      expect((await fetch(after.feeds[0]!.url)).status).toBe(200)
    },
    { timeout: 60_000 },
  )

  test(
    'phone size: the Podcasts tab and the channel switch fit',
    async () => {
      await page.setViewportSize(PHONE)
      await page.goto('/account?tab=podcasts')
      await page.getByRole('textbox', { name: 'All your podcasts in one feed' }).waitFor()
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true)
      await shot('account-podcasts-phone')
      // the tabs take two rows on a phone, not three
      const rows = await page.getByRole('tab').evaluateAll((tabs) => new Set(tabs.map((t) => Math.round(t.getBoundingClientRect().top))).size)
      expect(rows).toBeLessThanOrEqual(2)
      expect(await axeFindings(page, 'account podcasts, phone')).toEqual([])
      await page.goto(`/youtube/channel/${channelId}`)
      await page.getByRole('checkbox', { name: 'Podcast' }).waitFor({ state: 'attached' })
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true)
      await shot('channel-podcast-phone')
      await page.setViewportSize(DESKTOP)
    },
    { timeout: 60_000 },
  )

  test(
    'episodes that fail: each says why, the podcast says so once, Retry and Retry All make them',
    async () => {
      expect((await page.request.put('/api/youtube/subscriptions/user?channel_id=@star-lab')).status()).toBe(200)
      await until('channel refreshed', async () => !((await (await page.request.get(`/api/youtube/channels/${failing.id}`)).json()) as { updating: boolean }).updating, 60_000)
      expect((await page.request.put(`/api/youtube/channels/${failing.id}/podcast`, { data: { enabled: true, keepLast: 2 } })).status()).toBe(200)
      const failedCount = async () => (await podcasts()).feeds.find((f) => f.channelId === failing.id)?.failed ?? 0
      await until('both episodes failed', async () => (await failedCount()) === 2, 60_000)

      await page.goto(`/youtube/channel/${failing.id}`)
      // the podcast's one sentence, with what to do; the list open, each episode's reason
      await page.getByText('No episode of this podcast could be made. This video is private.').waitFor()
      await page.getByText('Once the cause is fixed, press Retry All.').waitFor()
      const list = page.getByRole('list', { name: 'Episodes of Star Lab' })
      await list.waitFor()
      expect(await list.locator('[data-episode-state="failed"]').count()).toBe(2)
      expect(await list.getByText('Failed: This video is private.').count()).toBe(2)
      expect(await axeFindings(page, 'channel page, failed episodes')).toEqual([])
      await shot('channel-podcast-failed')

      // the cause gone: Retry on the newest one (by keyboard) makes it
      for (const id of failing.uploads) ytdlp.mapUrl(watchUrl(id), `${media.url}/files/tone.mp3`)
      const first = list.getByRole('listitem').first()
      await first.getByRole('button', { name: /^Retry / }).focus()
      await page.keyboard.press('Enter')
      await until('the first episode ready', async () => (await first.getAttribute('data-episode-state')) === 'ready', 60_000)
      await page.getByText('No episode of this podcast could be made.').waitFor({ state: 'hidden' })

      // the subscription card shows the count and Retry All
      await page.goto('/youtube/subscriptions')
      const tile = page.getByRole('article', { name: 'Star Lab' })
      await tile.getByText('1 of 2 episodes ready, 1 failed.').waitFor({ timeout: 60_000 })
      await tile.getByText('Episodes of Star Lab', { exact: true }).click()
      await tile.getByText('Failed: This video is private.').waitFor()
      expect(await axeFindings(page, 'subscriptions, a failed episode')).toEqual([])
      await shot('subscriptions-podcast-failed')

      // Account › Podcasts: the same, and Retry All there
      await page.goto('/account?tab=podcasts')
      await page.getByRole('textbox', { name: 'Star Lab: 1 of 2 episodes ready, 1 failed.' }).waitFor()
      await shot('account-podcasts-failed')
      await page.getByRole('button', { name: 'Retry All failed episodes of Star Lab' }).click()
      await page.getByRole('textbox', { name: 'Star Lab: 2 of 2 episodes ready.' }).waitFor({ timeout: 60_000 })
      expect(await axeFindings(page, 'account podcasts, retried')).toEqual([])
    },
    { timeout: 240_000 },
  )

  test('no page errors', () => {
    expect(pageErrors).toEqual([])
  })
})
