import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser } from '../support/browser.ts'
import { onPage } from '../support/e2e.ts'
import { REPO_ROOT } from '../support/server-process.ts'
import { until } from '../support/wait.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// The offline demo (issue 37, major 2) as a newcomer starts it: the README's one demo line,
// run as written (plus free ports and a fresh folder), then sign-up with the link from the
// log, a followed demo channel, a video played as audio in listen mode with its SponsorBlock
// segment skipped, and the channel's podcast filled and served. Every request stays on
// 127.0.0.1: the browser aborts any other, and the demo's yt-dlp only reaches the fake.

const EMAIL = 'demo-e2e@example.com'
const PASSWORD = 'demo-e2e-password'

let demo: Subprocess<'ignore', 'pipe', 'pipe'>
let output = ''
let appUrl = ''
let fakeUrl = ''
let dataDir = ''
let browser: Browser
let page: Page
const offLoopback: string[] = []
const pageErrors: string[] = []

/** The README's demo command (its one line naming scripts/demo.ts). */
function readmeCommand(): string[] {
  const lines = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').split('\n').filter((l) => l.includes('scripts/demo.ts'))
  expect(lines).toHaveLength(1)
  const command = /`([^`]*scripts\/demo\.ts[^`]*)`/.exec(lines[0]!)?.[1]
  if (!command) throw new Error(`no command in the README's demo line: ${lines[0]}`)
  return command.split(/\s+/)
}

/** The app's links name `localhost` (no PUBLIC_URL): the same server on 127.0.0.1. */
const onLoopback = (link: string) => link.replace(/^http:\/\/localhost:/, 'http://127.0.0.1:')

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-demo-e2e-'))
  await ensureWebBuild()
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !/^(PORT|HOST|DATA_DIR|DATABASE_URL|TEST_DATABASE_URL|NODE_ENV|LOG_LEVEL)$/.test(k)))
  demo = Bun.spawn([...readmeCommand(), '--youtube-port', '0', '--data-dir', dataDir], {
    cwd: REPO_ROOT,
    // its log at info (bun test's preload makes it silent): the listening line and the mail's link
    env: { ...env, PORT: '0', SCHEDULER: 'false', LOG_LEVEL: 'info' } as Record<string, string>,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    // its own process group: npx passes no signal on to bun (issue 37, minor 8), so the group is stopped
    detached: true,
  })
  for (const stream of [demo.stdout, demo.stderr])
    void (async () => {
      const decoder = new TextDecoder()
      for await (const chunk of stream) output += decoder.decode(chunk, { stream: true })
    })()
  const started = Date.now()
  appUrl = await until(
    `the demo listening (its output so far: ${output.slice(-2000)})`,
    () => {
      if (demo.exitCode !== null) throw new Error(`the demo exited with ${demo.exitCode}:\n${output}`)
      const port = /"msg":"tunefeed listening","url":"http:\/\/localhost:(\d+)"/.exec(output)?.[1]
      return port && `http://127.0.0.1:${port}`
    },
    170_000,
  )
  fakeUrl = /\[demo\] fake YouTube at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!
  console.log(`demo e2e: the demo answered in ${Date.now() - started} ms`)
  browser = await launchBrowser()
  const context = await browser.newContext({ baseURL: appUrl, viewport: { width: 1280, height: 800 } })
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => {
    offLoopback.push(route.request().url())
    return route.abort()
  })
  page = await context.newPage()
  page.on('pageerror', (err) => pageErrors.push(err.message))
}, 240_000)

afterAll(async () => {
  await browser?.close()
  if (demo) await stopGroup(demo.pid)
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

/** SIGTERM to the demo's whole process group (npx, bun), then waits until none of it is left. */
async function stopGroup(pid: number) {
  const alive = () => {
    try {
      process.kill(-pid, 0)
      return true
    } catch {
      return false
    }
  }
  if (!alive()) return
  process.kill(-pid, 'SIGTERM')
  await until('the demo stopped', () => !alive(), 30_000).catch(() => process.kill(-pid, 'SIGKILL'))
}

/** The verification link the demo's server logged for EMAIL. */
function loggedLink(): string | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('mail saved (no SMTP_URL)')) continue
    const entry = JSON.parse(line) as { to?: string; link?: string }
    if (entry.to === EMAIL && entry.link) return entry.link
  }
  return undefined
}

const api = async <T,>(path: string): Promise<T> => {
  const res = await page.request.get(path)
  if (!res.ok()) throw new Error(`${path}: ${res.status()} ${await res.text()}`)
  return (await res.json()) as T
}

type Video = { id: string; title: string }

describe('the offline demo', () => {
  let channelId = ''
  let videos: Video[] = []

  test(
    'sign up, follow a demo channel',
    async () => {
      await onPage(page, 'sign up', async () => {
        await page.goto('/create')
        await page.getByLabel('Email').fill(EMAIL)
        await page.getByLabel('Password').fill(PASSWORD)
        await page.getByRole('checkbox', { name: /I agree/ }).check({ force: true })
        await page.getByRole('button', { name: 'Submit' }).click()
        await page.getByText('Verify account by clicking link sent to email').waitFor()
      })
      const link = await until('the verification link in the log', () => loggedLink())
      await page.goto(onLoopback(link))
      await page.getByText('Account Verified !').waitFor()
      await onPage(page, 'log in', async () => {
        await page.goto('/login')
        await page.getByLabel('Email').fill(EMAIL)
        await page.getByLabel('Password').fill(PASSWORD)
        await page.getByRole('button', { name: 'Submit' }).click()
        await page.waitForURL((url) => url.pathname === '/music/downloader')
      })
      await onPage(page, 'follow @tiny-kitchen', async () => {
        await page.goto('/youtube/subscriptions')
        await page.getByRole('button', { name: 'Update Subscriptions' }).click()
        const dialog = page.getByRole('dialog', { name: 'Update Subscriptions' })
        await dialog.getByLabel('Channel ID or Handle').fill('@tiny-kitchen')
        await dialog.getByRole('button', { name: 'Subscribe' }).click()
        await dialog.getByText('Added Subscription Successfully').waitFor()
        await page.keyboard.press('Escape')
        await page.getByRole('article', { name: 'Tiny Kitchen' }).getByRole('link', { name: 'Tiny Kitchen' }).click()
        await page.waitForURL((url) => url.pathname.startsWith('/youtube/channel/'))
      })
      channelId = new URL(page.url()).pathname.split('/').pop()!
      videos = await until('the channel refreshed', async () => {
        const channel = await api<{ updating: boolean }>(`/api/youtube/channels/${channelId}`)
        const list = await api<{ videos: Video[] }>(`/api/youtube/videos/list?channel_id=${channelId}&per_page=3`)
        return !channel.updating && list.videos.length === 3 && list.videos
      }, 60_000)
    },
    { timeout: 90_000 },
  )

  test(
    'listen mode: the newest video plays as audio, and its sponsor spot is skipped',
    async () => {
      const newest = videos[0]!
      expect((await page.request.put(`/api/youtube/videos/${newest.id}/queue`)).status()).toBe(200)
      await onPage(page, 'listen', async () => {
        await page.goto('/youtube/videos?queuedOnly=true')
        await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
        const listen = page.locator('footer').getByRole('button', { name: 'Listen' })
        await listen.click()
        expect(await listen.getAttribute('aria-pressed')).toBe('true')
        // yt-dlp fetched the audio from the fake's watch page (its DASH audio), the app serves it
        await page.waitForFunction(
          (vid) => {
            const a = document.querySelector('audio[data-player=html5]') as HTMLAudioElement | null
            return !!a && a.getAttribute('src') === `/api/youtube/videos/${vid}/audio` && !a.paused && a.currentTime > 0.3
          },
          newest.id,
          { timeout: 45_000 },
        )
      })
      const time = () => page.evaluate(() => (document.querySelector('audio[data-player=html5]') as HTMLAudioElement).currentTime)
      const t0 = await time()
      await until('audio time advances', async () => (await time()) > t0 + 0.5, 10_000)
      await page.evaluate(() => {
        ;(document.querySelector('audio[data-player=html5]') as HTMLAudioElement).playbackRate = 2
      })
      const audio = await page.request.get(`/api/youtube/videos/${newest.id}/audio`)
      expect(audio.headers()['content-type']).toBe('audio/webm')
      // the demo's SponsorBlock lists a sponsor spot at 0:04-0:10 of the newest videos: skipped
      await onPage(page, 'the sponsor skip', () =>
        page.getByRole('status').filter({ hasText: 'Skipped a sponsor segment (0:04)' }).waitFor({ timeout: 20_000 }),
      )
      expect(await time()).toBeGreaterThanOrEqual(10)
      console.log(`demo e2e: audio at ${(await time()).toFixed(1)} s after the skip`)
    },
    { timeout: 90_000 },
  )

  test(
    "the channel's podcast: episodes made offline and served in the feed",
    async () => {
      await onPage(page, 'podcast on', async () => {
        await page.goto(`/youtube/channel/${channelId}`)
        const keep = page.getByRole('spinbutton', { name: 'Keep the last' })
        await keep.fill('2')
        await keep.press('Tab')
        await page.getByRole('checkbox', { name: 'Podcast' }).check({ force: true })
        await page.getByText('2 of 2 episodes ready.').waitFor({ timeout: 60_000 })
      })
      const { feeds } = await api<{ feeds: { channelId: string; url: string; episodes: number }[] }>('/api/youtube/podcasts')
      expect(feeds).toEqual([expect.objectContaining({ channelId, episodes: 2 })])
      // as a podcast app reads it: no cookie
      const xml = await (await fetch(onLoopback(feeds[0]!.url))).text()
      const enclosures = [...xml.matchAll(/<enclosure url="([^"]+)"[^>]*type="([^"]+)"/g)].map((m) => ({ url: m[1]!.replace(/&amp;/g, '&'), type: m[2]! }))
      expect(enclosures).toHaveLength(2)
      for (const e of enclosures) {
        const res = await fetch(onLoopback(e.url))
        expect(res.status).toBe(200)
        expect(res.headers.get('content-type')).toBe(e.type)
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10_000)
      }
      // the 30 s clips, with what the demo's SponsorBlock lists cut: the newest's sponsor spot
      // and self-promotion (10 s), the second's sponsor spot (6 s)
      const durations = [...xml.matchAll(/<itunes:duration>([^<]+)<\/itunes:duration>/g)].map((m) => m[1]!)
      expect(durations.sort()).toEqual(['0:00:20', '0:00:24'])
    },
    { timeout: 90_000 },
  )

  test(
    'keeping a video: fetched offline into the media-server layout, served back',
    async () => {
      const video = videos[2]!
      expect((await page.request.put(`/api/youtube/videos/${video.id}/keep`, { data: {} })).status()).toBe(202)
      await until('the kept file ready', async () => {
        const { videos: kept } = await api<{ videos: { id: string; kept: { state: string } | null }[] }>('/api/youtube/kept')
        return kept.find((v) => v.id === video.id)?.kept?.state === 'ready'
      }, 60_000)
      const file = await page.request.get(`/api/youtube/videos/${video.id}/file`)
      expect(file.status()).toBe(200)
      // the fake's DASH video and audio, merged by yt-dlp (VP8 does not go in MP4: Matroska)
      expect(file.headers()['content-type']).toBe('video/x-matroska')
      expect((await file.body()).byteLength).toBeGreaterThan(100_000)
    },
    { timeout: 90_000 },
  )

  test('nothing left 127.0.0.1; the fake served the watch pages and SponsorBlock', async () => {
    expect(offLoopback).toEqual([])
    expect(pageErrors).toEqual([])
    const stats = await (await fetch(`${fakeUrl}/_fake/stats`)).json()
    // the listened video (its episode reuses the audio), the second episode, the kept video
    expect(stats.watchRequests).toBeGreaterThanOrEqual(3)
    expect(stats.sponsorBlockRequests).toBeGreaterThanOrEqual(1)
  })
})
