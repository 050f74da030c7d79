import { beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import type { MediaServer } from '../support/media.ts'
import { musicPageHelpers, useMusicE2e, isMp3 } from '../support/music-e2e.ts'

// The Music Downloader form in the browser: validation, search params, the
// tag lookup of an upload, the phone layout (set-up and page helpers:
// tests/support/music-e2e.ts; the live job list: music-jobs.test.ts).

const m = useMusicE2e('music-form-e2e')
const { field, value, waitForValue, waitForPreview, listJobs, finished, submit, shot, scrollTo, jobRow } = musicPageHelpers(m)
let page: Page
let media: MediaServer
beforeAll(() => void ({ page, media } = m))

describe('music downloader form in the browser', () => {
  test('the empty page: form, placeholder artwork, validation messages, album from the title', async () => {
    await page.goto('/music/downloader')
    await page.getByRole('heading', { name: 'Music Downloader', level: 1 }).waitFor()
    await page.waitForFunction(() => document.title === 'Music Downloader | Tunefeed')
    await page.getByText('Music Downloader / Converter').waitFor()
    await page.getByRole('heading', { name: 'Jobs' }).waitFor()
    await page.getByText('No jobs yet').waitFor()
    await waitForPreview(null)
    await page.locator('[data-testid="live-state"][data-state="live"]').waitFor()

    // docs/product.md#music-form: the link is required unless a file is chosen ('Invalid Link'); title, artist, album 'Required'
    await submit()
    await page.getByText('Invalid Link').waitFor()
    expect(await page.getByText('Required', { exact: true }).count()).toBe(3)
    await field('Video URL').fill('not a link')
    expect(await page.getByText('Invalid Link').count()).toBe(1)
    await field('Video URL').fill('https://example.invalid/watch?v=1')
    await page.getByText('Invalid Link').waitFor({ state: 'hidden' })

    // docs/product.md#album-from-title: the album follows the title
    await field('Title').fill('Blue Monday (Extended Mix)')
    expect(await value('album')).toBe('Blue Monday - Mix')
    await field('Title').fill('Never Gonna Give You Up')
    expect(await value('album')).toBe('Never Gonna Give You Up - Single')
    await field('Artist').fill('Someone')
    expect(await page.getByText('Required', { exact: true }).count()).toBe(0)

    // the file toggle: a file is required, and only audio/mpeg or audio/wav
    await page.getByRole('radio', { name: 'Audio File' }).check({ force: true })
    await page.getByText('Required', { exact: true }).waitFor()
    expect(await page.getByRole('textbox', { name: 'Video URL' }).count()).toBe(0)
    await page.getByTestId('audio-file-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not audio') })
    await page.getByText('Must be an audio/mpeg (MP3) or audio/wav (WAV) file').waitFor()
    await page.getByRole('radio', { name: 'Video URL' }).check({ force: true })
    await field('Video URL').waitFor()
    expect(await value('video_url')).toBe('https://example.invalid/watch?v=1')
  }, 60_000)
  test('search params from "Save as track" prefill the form; the grouping is looked up from the link', async () => {
    const search = new URLSearchParams({
      videoUrl: `${media.url}/page.html`,
      title: 'Prefilled Track (Live)',
      artist: 'Prefilled Artist',
      artworkUrl: `${media.url}/cover.jpg`,
    })
    await page.goto(`/music/downloader?${search}`)
    await field('Video URL').waitFor()
    expect(await value('video_url')).toBe(`${media.url}/page.html`)
    expect(await value('title')).toBe('Prefilled Track (Live)')
    expect(await value('album')).toBe('Prefilled Track - Live')
    expect(await value('artist')).toBe('Prefilled Artist')
    expect(await value('artwork_url')).toBe(`${media.url}/cover.jpg`)
    // a .jpg link is shown as it is, without asking the server
    await waitForPreview((src) => src === `${media.url}/cover.jpg`)
    expect(media.hits.some((h) => h.startsWith('/og.html'))).toBe(false)
    // yt-dlp reads the page's JSON-LD: its author is the grouping
    await waitForValue('grouping', 'Test Uploader', 60_000)
  }, 90_000)
  test('an uploaded MP3 fills the form from its tags and becomes a job', async () => {
    await page.goto('/music/downloader')
    await page.getByRole('radio', { name: 'Audio File' }).check({ force: true })
    await page.getByTestId('audio-file-input').setInputFiles(m.taggedMp3)
    await page.getByTestId('chosen-file').getByText('Tagged Upload.mp3').waitFor()

    await waitForValue('title', 'Tagged Song (Acoustic Version)')
    expect(await value('artist')).toBe('Tag Artist')
    expect(await value('album')).toBe('Tag Album')
    expect(await value('grouping')).toBe('Tag Group')
    expect(await value('artwork_url')).toStartWith('data:image/jpeg;base64,')
    await waitForPreview((src) => src.startsWith('data:image/jpeg;base64,'))
    await page.getByText('Artwork from the file’s tags').waitFor()
    await page.mouse.move(0, 0)
    await shot('music-upload')

    await submit()
    await page.getByText('Job Created Successfully').first().waitFor()
    await waitForValue('title', '')
    const row = jobRow('Tagged Song (Acoustic Version)')
    await row.waitFor()
    await finished(row, 90_000)
    await row.getByRole('link', { name: 'Download' }).waitFor()
    const job = (await listJobs()).find((j) => j.title === 'Tagged Song (Acoustic Version)')!
    expect(job).toMatchObject({ artist: 'Tag Artist', album: 'Tag Album', grouping: 'Tag Group', originalFilename: 'Tagged Upload.mp3' })
    expect(job.artworkUrl).toBe(`/api/music/jobs/${job.id}/artwork`)
    const res = await page.request.get(job.downloadUrl!)
    expect(res.status()).toBe(200)
    expect(isMp3(new Uint8Array(await res.body()))).toBe(true)
  }, 120_000)
  test('on a 390 px phone the page fits the screen', async () => {
    const phone = await m.browser.newContext({
      baseURL: m.server.url,
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      hasTouch: true,
      isMobile: true,
      storageState: await m.context.storageState(),
    })
    const p = await phone.newPage()
    p.on('pageerror', (err) => m.pageErrors.push(err.message))
    await p.goto('/music/downloader')
    await p.getByText('Music Downloader / Converter').waitFor()
    await p.getByTestId('music-job').first().waitFor()
    await p.getByRole('textbox', { name: 'Title', exact: true }).fill('Phone Track (Night Version)')
    await p.getByRole('textbox', { name: 'Artist', exact: true }).fill('Pocket Artist')
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    // every row's buttons are on screen
    for (const button of await p.getByTestId('music-job').getByRole('button', { name: 'Delete' }).all()) {
      const box = (await button.boundingBox())!
      expect(box.x + box.width).toBeLessThanOrEqual(390)
    }
    await scrollTo(p, null)
    await shot('music-mobile', p, true)
    await phone.close()

    expect(m.pageErrors).toEqual([])
    expect(m.consoleProblems).toEqual([])
  }, 90_000)
})
