import { beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { MediaServer } from '../support/media.ts'
import { musicPageHelpers, useMusicE2e, isMp3 } from '../support/music-e2e.ts'

// The Music Downloader's job list in the browser: a job live from Loading to
// Download over the socket, jobs started elsewhere, Failed, Delete, paging
// (set-up and page helpers: tests/support/music-e2e.ts; the form: music-form.test.ts).

const m = useMusicE2e('music-jobs-e2e')
const { field, value, waitForValue, waitForPreview, listJobs, loadingPercent, finished, submit, shot, scrollTo, jobRow } = musicPageHelpers(m)
let page: Page
let media: MediaServer
let workDir: string
beforeAll(() => void ({ page, media, workDir } = m))

describe('music downloader jobs in the browser', () => {
  test('a link job goes from Loading to Download live, and the download is the MP3', async () => {
    await page.goto('/music/downloader')
    await field('Video URL').waitFor()
    await page.evaluate(() => ((window as unknown as { noReload: boolean }).noReload = true))

    // a page link: the grouping comes from it after the 500 ms debounce
    await field('Video URL').fill(`${media.url}/page.html`)
    await waitForValue('grouping', 'Test Uploader', 60_000)
    // the slow direct file is the one converted; it has no channel, so the grouping stays
    await field('Video URL').fill(media.slowUrl('long.mp3'))

    // a page with og:image: resolved by the server to its cover
    await field('Artwork URL').fill(`${media.url}/og.html`)
    await waitForPreview((src) => src === `${media.url}/cover.png`)
    await field('Title').fill('Blue Monday (Extended Mix)')
    await field('Artist').fill('New Order')
    expect(await value('album')).toBe('Blue Monday - Mix')
    expect(await value('grouping')).toBe('Test Uploader')
    await page.getByText('Looking up the channel…').waitFor({ state: 'hidden', timeout: 30_000 })
    await page.mouse.move(0, 0)
    await shot('music-form')

    media.slowRate = 64 * 1024
    await submit()
    await page.getByText('Job Created Successfully').first().waitFor()
    // docs/product.md#music-downloader: then the video URL, artwork URL and title are cleared; the rest stays
    await waitForValue('video_url', '')
    expect(await value('artwork_url')).toBe('')
    expect(await value('title')).toBe('')
    expect(await value('artist')).toBe('New Order')
    expect(await value('album')).toBe('Blue Monday - Mix')
    expect(await page.getByText('Required', { exact: true }).count()).toBe(0)
    await waitForPreview(null)

    // the row appears in progress, its percentage moves, then it turns into Download: all over the socket
    const row = jobRow('Blue Monday (Extended Mix)')
    await row.waitFor()
    const seen = new Set<number>()
    await finished(row, 90_000, (pct) => seen.add(pct))
    expect(seen.size).toBeGreaterThan(1)
    expect([...seen].some((p) => p > 0 && p < 100)).toBe(true)
    const download = row.getByRole('link', { name: 'Download' })
    await download.waitFor()
    expect(await page.evaluate(() => (window as unknown as { noReload?: boolean }).noReload)).toBe(true)

    const job = (await listJobs()).find((j) => j.title === 'Blue Monday (Extended Mix)')!
    expect(job.completed).not.toBeNull()
    expect(job.grouping).toBe('Test Uploader')
    expect(job.album).toBe('Blue Monday - Mix')
    expect(await row.locator('img').getAttribute('src')).toBe(job.artworkUrl)

    const [file] = await Promise.all([page.waitForEvent('download'), download.click()])
    expect(file.suggestedFilename()).toBe(job.downloadFilename!.slice(job.downloadFilename!.lastIndexOf('/') + 1))
    expect(file.suggestedFilename()).toEndWith('.mp3')
    const saved = join(workDir, 'downloaded.mp3')
    await file.saveAs(saved)
    const bytes = new Uint8Array(readFileSync(saved))
    expect(bytes.length).toBeGreaterThan(100_000)
    expect(isMp3(bytes)).toBe(true)
  }, 150_000)
  test('jobs started elsewhere appear live; Failed is red; Delete removes a running or failed job; 5 per page', async () => {
    // started through the API, as another tab would: the socket's STARTED refreshes the list
    const start = async (fields: Record<string, string>) => {
      const res = await page.request.post('/api/music/jobs/create', { multipart: { artist: 'API Artist', album: 'API Album', ...fields } })
      expect(res.status()).toBe(201)
      return ((await res.json()) as { id: string }).id
    }
    await start({ video_url: `${media.url}/text.txt`, title: 'Broken Link Track' })
    const failed = jobRow('Broken Link Track')
    await page.locator('[data-testid="music-job"][data-state="failed"]').filter({ hasText: 'Broken Link Track' }).waitFor({ timeout: 60_000 })
    const failedButton = failed.getByRole('button', { name: 'Failed' })
    expect(await failedButton.isVisible()).toBe(true)
    // red: the solid button of the red palette
    const bg = await failedButton.evaluate((el) => getComputedStyle(el).backgroundColor)
    const [r, g, b] = bg.match(/\d+/g)!.map(Number)
    expect(r!).toBeGreaterThan(150)
    expect(r!).toBeGreaterThan(g! * 2)
    expect(r!).toBeGreaterThan(b! * 2)

    media.slowRate = 12 * 1024
    await start({ video_url: media.slowUrl('long.mp3'), title: 'Slow Burner (Radio Edit)', grouping: 'Night Shift' })
    const slow = jobRow('Slow Burner (Radio Edit)')
    await slow.getByRole('button', { name: /^Loading \d+%$/ }).waitFor({ timeout: 30_000 })
    // some progress to show in the screenshot
    const until = Date.now() + 40_000
    while (((await loadingPercent(slow)) ?? 0) < 10 && Date.now() < until) await page.waitForTimeout(100)
    expect(await page.getByTestId('music-job').count()).toBe(3)
    await page.mouse.move(0, 0)
    await scrollTo(page, '[data-testid="music-jobs"]')
    await shot('music-jobs')

    // deleting a running job
    await slow.getByRole('button', { name: 'Delete' }).click()
    await slow.waitFor({ state: 'detached' })
    await failed.getByRole('button', { name: 'Delete' }).click()
    await failed.waitFor({ state: 'detached' })
    const left = await listJobs()
    expect(left.map((j) => j.title)).toEqual(['Blue Monday (Extended Mix)'])
    media.slowRate = 64 * 1024

    // 6 jobs: page 1 shows 5, newest first; page 2 the oldest
    for (let i = 1; i <= 5; i++) await start({ video_url: `${media.url}/audio.mp3`, title: `Quick Track ${i}` })
    await jobRow('Quick Track 5').waitFor()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="music-job"]').length === 5)
    expect(await page.getByTestId('music-job').first().textContent()).toContain('Quick Track 5')
    expect(await jobRow('Blue Monday (Extended Mix)').count()).toBe(0)
    await page.getByRole('button', { name: 'Next page' }).click()
    await jobRow('Blue Monday (Extended Mix)').waitFor()
    expect(await page.getByTestId('music-job').count()).toBe(1)
    await page.getByRole('button', { name: 'Previous page' }).click()
    await jobRow('Quick Track 5').waitFor()
    await page.locator('[data-testid="music-job"][data-state="running"]').first().waitFor({ state: 'detached', timeout: 60_000 })
  }, 150_000)

  test('the page logged no errors', () => {
    expect(m.pageErrors).toEqual([])
    expect(m.consoleProblems).toEqual([])
  })
})
