import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { watchUrl } from '../../src/youtube/listen/audio.ts'
import { axeFindings } from '../support/axe.ts'
import { type FakeYtdlp, startFakeYtdlp } from '../support/fake-ytdlp.ts'
import { type KeptMedia, startKeptMedia } from '../support/kept-media.ts'
import { recordSeeks, seeks } from '../support/sponsorblock-e2e.ts'
import { api, DESKTOP, fake, noPageErrors, page, PHONE, setUpVideoArea, shot, sponsorBlock, subscribe, until, type VideoJson } from '../support/videos-e2e.ts'

// Keeping videos (issue 33) in the browser: the Keep switch on the channel page (by keyboard), the
// server fetching the newest videos with the stand-in yt-dlp (watch URLs mapped to loopback pages
// of real 12 s MP4s), the Kept page, and the video page playing the kept file in the page's own
// <video> with a sponsor segment skipped, "Play from YouTube" as the way back.

let media: KeptMedia
let ytdlp: FakeYtdlp
let keepDir: string

setUpVideoArea({
  directMedia: false,
  bypassCSP: true,
  env: async (f) => {
    media = await startKeptMedia([360], 12)
    const ids = f.channel('@tiny-kitchen').uploads
    ytdlp = startFakeYtdlp({ urls: Object.fromEntries(ids.map((id) => [watchUrl(id), `${media.url}/v/${id}.html`])) })
    keepDir = mkdtempSync(join(tmpdir(), 'tunefeed-keep-e2e-'))
    return { YTDLP_PATH: ytdlp.path, KEEP_DIR: keepDir, KEEP_MIN_FREE_MB: '0', YTDLP_SLEEP_SECONDS: '0', FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com' }
  },
})
afterAll(async () => {
  await media?.stop()
  ytdlp?.stop()
  if (keepDir) rmSync(keepDir, { recursive: true, force: true })
})

type Kept = { videos: (VideoJson & { kept: { state: string } | null })[]; usedBytes: number; quotaBytes: number | null }

describe('keeping videos', () => {
  let channelId: string
  beforeAll(async () => {
    channelId = await subscribe('@tiny-kitchen')
    await until('the channel videos', async () => (await api<{ videos: unknown[] }>(`/api/youtube/videos/list?channel_id=${channelId}`)).videos.length > 3, 60_000)
  }, 120_000)

  test('Keep on the channel page, by keyboard: the newest videos are kept; the Kept page lists them', async () => {
    await page.goto(`/youtube/channel/${channelId}`)
    const keep = page.getByRole('checkbox', { name: 'Keep', exact: true })
    await keep.waitFor()
    const newest = page.getByRole('spinbutton', { name: /Newest/ })
    await newest.fill('2')
    await newest.press('Enter')
    await until('the setting saved', async () => (await api<{ keepLast: number }>(`/api/youtube/channels/${channelId}/keep`)).keepLast === 2 && (await keep.isEnabled()))
    await keep.focus()
    await page.keyboard.press('Space')
    await page.getByText('Its newest videos are kept on the server.').waitFor()
    await shot('keep-channel-page')
    expect(await axeFindings(page, 'channel page with the Keep switch')).toEqual([])

    const ready = await until(
      'two kept videos ready',
      async () => {
        const k = await api<Kept>('/api/youtube/kept')
        return k.videos.length === 2 && k.videos.every((v) => v.kept?.state === 'ready') ? k : undefined
      },
      120_000,
    )
    expect(ready.usedBytes).toBeGreaterThan(0)

    await page.goto('/youtube/kept')
    await page.getByRole('list', { name: 'Kept videos' }).waitFor()
    expect(await page.getByRole('list', { name: 'Kept videos' }).getByRole('listitem').count()).toBe(2)
    await page.getByTestId('kept-usage').waitFor()
    await shot('keep-kept-page')
    expect(await axeFindings(page, 'Kept page')).toEqual([])
    await page.setViewportSize(PHONE)
    await shot('keep-kept-page-phone')
    expect(await axeFindings(page, 'Kept page at phone width')).toEqual([])
    await page.setViewportSize(DESKTOP)
  }, 240_000)

  test('the video page plays the kept file in its own <video> with a sponsor segment skipped; Play from YouTube goes back', async () => {
    const kept = await api<Kept>('/api/youtube/kept')
    const video = kept.videos[0]!
    sponsorBlock.segments.set(video.id, [{ category: 'sponsor', segment: [3, 6] }])
    await page.goto(`/youtube/video/${video.id}`)
    const player = page.locator('video[data-player=html5]')
    await player.waitFor()
    // the player sets its source once mounted
    await until('the kept file as the source', async () => (await player.getAttribute('src')) === `/api/youtube/videos/${video.id}/file`)
    await recordSeeks(page, 'video[data-player=html5]')
    await page.getByRole('status').filter({ hasText: 'Skipped a sponsor segment' }).waitFor({ timeout: 30_000 })
    const skip = await until('the skip past the segment', async () => (await seeks(page)).find((s) => s.src.includes(`/videos/${video.id}/file`) && Math.abs(s.to - 6) < 0.3))
    expect(skip.from).toBeGreaterThanOrEqual(2.85)
    expect(skip.from).toBeLessThan(3.6)
    await page.getByRole('button', { name: 'Kept', exact: true }).waitFor()
    await shot('keep-video-page')
    expect(await axeFindings(page, 'video page playing a kept file')).toEqual([])
    await page.getByRole('button', { name: 'Play from YouTube' }).click()
    await until('the YouTube player back', async () => (await page.locator('video[data-player=html5]').count()) === 0)
    await page.getByRole('button', { name: 'Play kept copy' }).waitFor()
    expect(fake).toBeDefined()
  }, 120_000)

  test('unfollowing offers to remove what the channel kept: off by default, then every kept video goes', async () => {
    const before = await api<Kept>('/api/youtube/kept')
    const ids = before.videos.filter((v) => v.channel.title === 'Tiny Kitchen').map((v) => v.id)
    expect(ids.length).toBe(2)
    await page.goto(`/youtube/channel/${channelId}`)
    await page.getByRole('button', { name: 'Unsubscribe' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Confirm Remove Subscription' })
    const offer = dialog.getByRole('checkbox', { name: 'Also remove the 2 videos kept from this channel' })
    await offer.waitFor()
    expect(await offer.isChecked()).toBe(false)
    expect(await axeFindings(page, 'unsubscribe dialog with the kept videos offer')).toEqual([])
    await shot('keep-unfollow-offer')
    // by keyboard: Space on the checkbox, then Confirm
    await offer.focus()
    await page.keyboard.press('Space')
    expect(await offer.isChecked()).toBe(true)
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    await page.getByText('Removed 2 videos kept from Tiny Kitchen').waitFor()
    const after = await api<Kept>('/api/youtube/kept')
    expect(after.videos.filter((v) => ids.includes(v.id))).toEqual([])
    expect(after.usedBytes).toBe(0)
    // and the files are gone from the layout
    const left = [...new Bun.Glob('**/*.mp4').scanSync(keepDir)]
    expect(left).toEqual([])
  }, 120_000)

  noPageErrors()
})
