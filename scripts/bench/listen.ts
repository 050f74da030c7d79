#!/usr/bin/env bun
/**
 * Listen mode benchmark (a benchmark, not a test): `bun scripts/bench/listen.ts [--runs=5] [--seconds=180]`
 *
 * Time from pressing 'Listen' in the autoplay player to sound (the <audio> element's `playing`
 * event, both times taken in the page), against the local stand-ins: the built web app in
 * Debian's Chromium, the server as its own process (job queue, PGlite), the fake YouTube, and
 * the stand-in yt-dlp (tests/support/fake-ytdlp.ts) that maps each watch URL to a `--seconds` long
 * 192 kbit/s MP3 on the loopback media server, which Debian's yt-dlp then downloads (as a real fetch
 * would from YouTube, only faster). Per run, one video that was never fetched:
 *  - uncached: its clip plays in the embed, Listen is pressed: POST → the `youtube.audio` job
 *    runs yt-dlp → the channel socket tells the player `ready` (docs/decisions/310; the poll is the
 *    fallback) → <audio> loads and plays;
 *  - cached: Listen off (the clip plays again), then on: POST answers `ready` at once.
 * The baseline, measured in the same run: the job's yt-dlp command (downloadArgs) by hand on the
 * same watch URL through the same stand-in: what fetching costs at least. Prints medians and ranges in ms and the ratios uncached/cached and
 * uncached/yt-dlp-by-hand.
 *
 * Then the step to the next queued video (the first one's `ended` to the second one's `playing`)
 * in listen mode, the next one's audio prepared while the first played, against the same step in
 * the embed (here the HTML5 stand-in playing the fake's clips), alternating, `--runs` of each.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { startFakeYoutube } from '../fake-youtube.ts'
import { watchUrl } from '../../src/youtube/listen/audio.ts'
import { downloadArgs } from '../../src/tools/ytdlp.ts'
import { launchBrowser } from '../../tests/support/browser.ts'
import { createUser, openLoggedInPage } from '../../tests/support/e2e.ts'
import { startFakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { makeTone, startMediaServer } from '../../tests/support/media.ts'
import { startServerProcess } from '../../tests/support/server-process.ts'
import { ensureWebBuild } from '../../tests/support/web-build.ts'

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback)
const RUNS = arg('runs', 5)
const SECONDS = arg('seconds', 180)
const EMAIL = 'listen-bench@example.com'
const PASSWORD = 'listen-bench-password'

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const range = (xs: number[]) => `${Math.round(Math.min(...xs))}-${Math.round(Math.max(...xs))}`

const work = mkdtempSync(join(tmpdir(), 'tunefeed-bench-listen-'))
const dataDir = join(work, 'data')
const tone = join(work, 'tone.mp3')
const [fake, media] = await Promise.all([startFakeYoutube({ port: 0, hostname: '127.0.0.1', media: true }), startMediaServer(), makeTone(tone, SECONDS), ensureWebBuild()])
media.addFile('tone.mp3', tone)
const toneUrl = `${media.url}/files/tone.mp3`
const uploads = fake.channel('@lofi-garden').uploads
const ytdlp = startFakeYtdlp({ urls: Object.fromEntries(uploads.map((id) => [watchUrl(id), toneUrl])) })

await createUser(dataDir, EMAIL, PASSWORD)
const server = await startServerProcess({
  DATA_DIR: dataDir,
  ...fake.env,
  YTDLP_PATH: ytdlp.path,
  FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com',
  YOUTUBE_RETRY_BASE_MS: '1',
  RATE_LIMIT_MAX: '100000',
})
const browser = await launchBrowser()
const { context, page } = await openLoggedInPage(browser, { baseURL: server.url, viewport: { width: 1280, height: 800 } }, { email: EMAIL, password: PASSWORD })

async function api<T>(path: string, method: 'GET' | 'PUT' | 'DELETE' = 'GET'): Promise<T> {
  const res = await page.request.fetch(path, { method })
  if (!res.ok()) throw new Error(`${method} ${path}: ${res.status()} ${await res.text()}`)
  return (await res.json().catch(() => ({}))) as T
}

/** yt-dlp by hand: the job's own arguments (downloadArgs) on the same watch URL, through the same stand-in. */
async function ytdlpByHand(id: string): Promise<number> {
  const out = mkdtempSync(join(work, 'hand-'))
  const started = performance.now()
  const proc = Bun.spawn([ytdlp.path, ...downloadArgs(watchUrl(id), out)], { stdout: 'ignore', stderr: 'pipe' })
  const code = await proc.exited
  const ms = performance.now() - started
  rmSync(out, { recursive: true, force: true })
  if (code !== 0) throw new Error(`yt-dlp by hand failed: ${await new Response(proc.stderr).text()}`)
  return ms
}

/** Presses the switch in the page and waits for the <audio> element's `playing`; ms between the two. */
async function pressListenUntilSound(p: Page): Promise<number> {
  return p.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const button = [...document.querySelectorAll('footer button')].find((b) => b.textContent?.trim() === 'Listen') as HTMLButtonElement
        const timer = setTimeout(() => reject(new Error('no sound within 120 s')), 120_000)
        const onPlaying = (e: Event) => {
          if (!(e.target instanceof HTMLAudioElement)) return
          document.removeEventListener('playing', onPlaying, true)
          clearTimeout(timer)
          resolve(performance.now() - started)
        }
        document.addEventListener('playing', onPlaying, true)
        const started = performance.now()
        button.click()
      }),
  )
}

/** Listen off: the clip plays again in the embed (the HTML5 stand-in here). */
async function backToVideo(p: Page, id: string) {
  await p.getByRole('button', { name: 'Listen', pressed: true }).click()
  await p.waitForFunction(
    (vid) => {
      const v = document.querySelector('video[data-player=html5]') as HTMLVideoElement | null
      return !!v && v.currentSrc.includes(`/${vid}.webm`) && !v.paused && v.currentTime > 0.2
    },
    id,
    { timeout: 30_000 },
  )
}

/** Seeks the playing element near its end; ms from its `ended` to the next element's `playing`. */
async function stepToNext(p: Page, selector: string): Promise<number> {
  return p.evaluate(
    (sel) =>
      new Promise<number>((resolve, reject) => {
        const el = document.querySelector(sel) as HTMLMediaElement
        const first = el.getAttribute('src')
        const timer = setTimeout(() => reject(new Error('no step within 60 s')), 60_000)
        let endedAt = 0
        const onEnded = () => (endedAt = performance.now())
        const onPlaying = (e: Event) => {
          const t = e.target as HTMLMediaElement
          if (!endedAt || !t.matches(sel) || t.getAttribute('src') === first) return
          document.removeEventListener('playing', onPlaying, true)
          clearTimeout(timer)
          resolve(performance.now() - endedAt)
        }
        el.addEventListener('ended', onEnded, { once: true })
        document.addEventListener('playing', onPlaying, true)
        el.currentTime = Math.max(0, el.duration - 0.3)
      }),
    selector,
  )
}

const uncached: number[] = []
const cached: number[] = []
const byHand: number[] = []
try {
  const channelId = (await api<{ id: string }>('/api/youtube/subscriptions/user?channel_id=@lofi-garden', 'PUT')).id
  for (let i = 0; i < 120; i++) {
    const channel = await api<{ updating: boolean }>(`/api/youtube/channels/${channelId}`)
    if (!channel.updating) break
    await Bun.sleep(500)
  }
  const { videos } = await api<{ videos: { id: string; title: string }[] }>(`/api/youtube/videos/list?channel_id=${channelId}&per_page=${RUNS}`)
  if (videos.length < RUNS) throw new Error(`only ${videos.length} videos`)

  // warm-up: one yt-dlp by hand (Python's first start reads its files from disk)
  await ytdlpByHand(videos[0]!.id)
  for (let run = 0; run < RUNS; run++) {
    const video = videos[run]!
    // only this video queued: autoplay starts on it
    if (run > 0) await api(`/api/youtube/videos/${videos[run - 1]!.id}/queue`, 'DELETE')
    await api(`/api/youtube/videos/${video.id}/queue`, 'PUT')
    await page.goto('/youtube/videos?queuedOnly=true')
    await page.waitForFunction(() => document.querySelectorAll('article[data-video-id]').length === 1)
    await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
    await page.waitForFunction(
      (vid) => {
        const v = document.querySelector('video[data-player=html5]') as HTMLVideoElement | null
        return !!v && v.currentSrc.includes(`/${vid}.webm`) && !v.paused && v.currentTime > 0.2
      },
      video.id,
      { timeout: 30_000 },
    )
    // yt-dlp by hand and the two presses alternate their order per run, so a slow moment falls on either side
    if (run % 2 === 1) byHand.push(await ytdlpByHand(video.id))
    uncached.push(await pressListenUntilSound(page))
    await backToVideo(page, video.id)
    cached.push(await pressListenUntilSound(page))
    if (run % 2 === 0) byHand.push(await ytdlpByHand(video.id))
    // off again for the next run's start, and the footer closed
    await backToVideo(page, video.id)
    await page.getByRole('button', { name: 'Stop AutoPlay' }).click()
    console.log(`run ${run + 1}: uncached ${Math.round(uncached.at(-1)!)} ms, cached ${Math.round(cached.at(-1)!)} ms, yt-dlp by hand ${Math.round(byHand.at(-1)!)} ms`)
  }

  const u = median(uncached)
  const c = median(cached)
  const h = median(byHand)
  console.log(`\nlisten mode: pressing 'Listen' to sound (${RUNS} runs, a ${SECONDS} s 192 kbit/s MP3 source on loopback; median, range)`)
  console.log('| case | ms (median) | range |')
  console.log('|---|---|---|')
  console.log(`| uncached (POST, yt-dlp job, readiness pushed over the socket, <audio> plays) | ${Math.round(u)} | ${range(uncached)} |`)
  console.log(`| cached (POST answers ready, <audio> plays) | ${Math.round(c)} | ${range(cached)} |`)
  console.log(`| baseline: the same yt-dlp download by hand | ${Math.round(h)} | ${range(byHand)} |`)
  console.log(`\nuncached / cached: ${(u / c).toFixed(1)}x; uncached / yt-dlp by hand: ${(u / h).toFixed(2)}x (${Math.round(u - h)} ms more)`)

  // the step to the next video: two queued videos whose audio the runs above fetched
  const { id: userId } = await api<{ id: string }>('/api/auth/session')
  await api(`/api/youtube/videos/${videos[RUNS - 1]!.id}/queue`, 'DELETE')
  for (const v of videos.slice(0, 2)) await api(`/api/youtube/videos/${v.id}/queue`, 'PUT')
  const steps = { listen: [] as number[], embed: [] as number[] }
  for (let run = 0; run < 2 * RUNS; run++) {
    const mode = run % 2 === 0 ? 'listen' : 'embed'
    await page.goto('/youtube/videos?queuedOnly=true')
    await page.evaluate(([key, on]) => (on ? localStorage.setItem(key!, 'on') : localStorage.removeItem(key!)), [`tunefeed:listen:${userId}`, mode === 'listen' ? 'on' : ''] as const)
    await page.reload()
    await page.waitForFunction(() => document.querySelectorAll('article[data-video-id]').length === 2)
    await page.getByRole('button', { name: 'Enable AutoPlay' }).click()
    const selector = mode === 'listen' ? 'audio[data-player=html5]' : 'video[data-player=html5]'
    await page.waitForFunction((sel) => {
      const el = document.querySelector(sel) as HTMLMediaElement | null
      return !!el && !el.paused && el.currentTime > 0.3 && el.duration > 1
    }, selector, { timeout: 60_000 })
    // listen mode: the player asked for the next one's audio while this one played
    if (mode === 'listen') await page.waitForResponse((r) => /\/audio$/.test(r.url()) && r.request().method() === 'POST' && !r.url().includes(videos[0]!.id), { timeout: 10_000 }).catch(() => {})
    steps[mode].push(await stepToNext(page, selector))
    await page.getByRole('button', { name: 'Stop AutoPlay' }).click()
  }
  const sl = median(steps.listen)
  const se = median(steps.embed)
  console.log(`\nstep to the next queued video (ended → playing; ${RUNS} runs each, alternating; median, range)`)
  console.log('| player | ms (median) | range |')
  console.log('|---|---|---|')
  console.log(`| listen mode (<audio>, next audio prepared ahead) | ${Math.round(sl)} | ${range(steps.listen)} |`)
  console.log(`| embed (HTML5 stand-in for the fake's clips) | ${Math.round(se)} | ${range(steps.embed)} |`)
  console.log(`\nlisten / embed: ${(sl / se).toFixed(2)}x`)
} finally {
  await context.close()
  await browser.close()
  await server.stop()
  await fake.stop()
  await media.stop()
  ytdlp.stop()
  rmSync(work, { recursive: true, force: true })
}
