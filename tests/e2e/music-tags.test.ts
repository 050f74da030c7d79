import { beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import type { MediaServer } from '../support/media.ts'
import { PLAYLIST_ITEMS, TEST_CHAPTERS } from '../support/media.ts'
import { axeFindings } from '../support/axe.ts'
import { musicPageHelpers, useMusicE2e } from '../support/music-e2e.ts'
import type { MusicServices } from '../support/music-services.ts'

// Issue 12 in the browser: suggestions from a link, MusicBrainz candidates,
// a chapter split, "Add all N" for a playlist, tag edits and the in-page
// player, against the real server process, yt-dlp and ffmpeg, the media
// server and the MusicBrainz / Cover Art Archive stand-ins on 127.0.0.1
// (set-up and helpers: tests/support/music-e2e.ts).

const m = useMusicE2e('music-tags-e2e')
const { input, jobRow, shot, waitForValue, listJobs: jobs, finished } = musicPageHelpers(m)
let page: Page
let media: MediaServer
let services: MusicServices
beforeAll(() => void ({ page, media, services } = m))

async function freshForm() {
  await page.goto('/music/downloader')
  await page.getByText('Music Downloader / Converter').waitFor()
}

describe('music tags in the browser', () => {
  test('a pasted link fills the empty fields and keeps the typed one; a MusicBrainz candidate applies in one click', async () => {
    await freshForm()
    await input('artist').fill('Typed Artist')
    await input('video_url').fill(`${media.url}/titled.html?title=${encodeURIComponent('Daft Punk - Get Lucky (Official Video) [4K]')}`)
    await waitForValue('title', 'Get Lucky')
    await waitForValue('album', 'Get Lucky - Single')
    await waitForValue('artwork_url', `${media.url}/cover.jpg`)
    // typed by the user: left alone
    expect(await input('artist').inputValue()).toBe('Typed Artist')

    await input('artist').fill('Daft Punk')
    await page.getByRole('button', { name: 'Find on MusicBrainz' }).click()
    const candidates = page.getByRole('list', { name: 'MusicBrainz candidates' })
    await candidates.getByRole('listitem').first().waitFor()
    // the recording and its radio edit, best first
    expect(await candidates.getByRole('listitem').count()).toBe(2)
    await shot('music-musicbrainz-candidates')
    await candidates.getByRole('button', { name: 'Use Get Lucky from Random Access Memories' }).click()
    await waitForValue('album', 'Random Access Memories')
    await waitForValue('year', '2013')
    await waitForValue('trackNumber', '8')
    await waitForValue('artist', 'Daft Punk feat. Pharrell Williams')
    expect(await input('artwork_url').inputValue()).toContain(`${services.caaUrl}/release/`)

    await page.getByRole('button', { name: 'Submit' }).click()
    await page.getByText('Job Created Successfully').waitFor()
    const row = jobRow('Get Lucky')
    await row.waitFor()
    await finished(row, 90_000)
    const job = (await jobs()).find((j) => j.title === 'Get Lucky')!
    expect(job).toMatchObject({ artist: 'Daft Punk feat. Pharrell Williams', album: 'Random Access Memories', year: 2013, trackNumber: 8 })
  })

  test('a link with chapters: "Split by chapters" lists the tracks, and the finished job has one per chapter', async () => {
    await freshForm()
    await input('video_url').fill(`${media.url}/album.html`)
    const options = page.getByTestId('link-options')
    await options.getByRole('list', { name: 'Tracks' }).waitFor()
    for (const c of TEST_CHAPTERS) await options.getByText(c.title, { exact: true }).waitFor()
    await waitForValue('title', 'Whole Album')
    await waitForValue('artist', 'Test Band')
    await waitForValue('album', 'Whole Album')
    await page.getByText('Split by chapters').click()
    await shot('music-chapters-form')
    await page.getByRole('button', { name: 'Submit' }).click()
    const row = jobRow('Whole Album')
    await row.waitFor()
    await finished(row)
    const tracks = row.getByRole('list', { name: 'Tracks of Whole Album' })
    await tracks.waitFor()
    expect(await tracks.getByRole('listitem').allInnerTexts()).toEqual(TEST_CHAPTERS.map((c, i) => expect.stringContaining(`${i + 1}.\n${c.title}`)))
    await expect(row.getByRole('link', { name: 'Download all' }).getAttribute('download')).resolves.toBe('Test Band - Whole Album.zip')
    await row.scrollIntoViewIfNeeded()
    await shot('music-chapters-tracks')
  })

  test('a playlist link offers "Add all N": one job per entry', async () => {
    await freshForm()
    await input('video_url').fill(`${media.url}/playlist.rss`)
    const addAll = page.getByRole('button', { name: `Add all ${PLAYLIST_ITEMS.length}` })
    await addAll.waitFor()
    await waitForValue('album', 'Test Playlist')
    await shot('music-playlist')
    await addAll.click()
    await page.getByText('Job Created Successfully').waitFor()
    for (const title of ['One', 'Two', 'Three']) await page.locator(`[data-testid="music-job"][aria-label="${title}"]`).waitFor()
    const made = (await jobs()).filter((j) => j.album === 'Test Playlist')
    expect(made.map((j) => j.trackNumber).sort()).toEqual([1, 2, 3])
  })

  test('edit the tags of a finished job, then play it in the page', async () => {
    await freshForm()
    const row = jobRow('Get Lucky')
    await finished(row)
    await row.getByRole('button', { name: 'Edit tags of Get Lucky' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit tags' })
    await dialog.waitFor()
    await dialog.getByRole('textbox', { name: 'Title' }).fill('Get Lucky (Radio Edit)')
    await dialog.getByRole('textbox', { name: 'Year' }).fill('2014')
    // the lyrics (none kept: LYRICS_URL is off in tests) in a labelled textarea, reached by keyboard from Track number
    const lyrics = dialog.getByRole('textbox', { name: 'Lyrics' })
    await expect(lyrics.isEnabled()).resolves.toBe(true)
    expect(await lyrics.inputValue()).toBe('')
    await dialog.getByRole('textbox', { name: 'Track number' }).focus()
    await page.keyboard.press('Tab')
    expect(await lyrics.evaluate((el) => el === document.activeElement && el.tagName)).toBe('TEXTAREA')
    await page.keyboard.type('[00:01.50]Like the legend\n[00:04.00]Of the phoenix')
    expect(await axeFindings(page, 'edit tags dialog with lyrics')).toEqual([])
    await shot('music-edit-tags')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'detached' })
    const edited = jobRow('Get Lucky (Radio Edit)')
    await edited.waitFor()
    const job = (await jobs()).find((j) => j.title === 'Get Lucky (Radio Edit)')!
    expect(job.year).toBe(2014)
    expect(job.downloadFilename).toBe('Daft Punk feat. Pharrell Williams - Get Lucky (Radio Edit).mp3')
    expect(job.lyrics).toEqual({ synced: true, source: 'edited' })
    // opened again, the dialog shows the kept lyrics
    await edited.getByRole('button', { name: 'Edit tags of Get Lucky (Radio Edit)' }).click()
    await expect(
      page.getByRole('dialog', { name: 'Edit tags' }).getByRole('textbox', { name: 'Lyrics' }).inputValue(),
    ).resolves.toContain('Like the legend')
    await page.keyboard.press('Escape')
    await page.getByRole('dialog', { name: 'Edit tags' }).waitFor({ state: 'detached' })

    await edited.getByRole('button', { name: 'Play Get Lucky (Radio Edit)' }).click()
    const player = page.getByRole('region', { name: 'Player' })
    await player.waitFor()
    const audio = player.locator('audio')
    // the MP3 streams from the download route and plays
    await page.waitForFunction(() => {
      const a = document.querySelector('[aria-label="Player"] audio') as HTMLAudioElement | null
      return !!a && a.readyState >= 2 && a.duration > 2
    })
    expect(await audio.getAttribute('src')).toBe(job.downloadUrl)
    await shot('music-player')
    expect(m.pageErrors).toEqual([])
  })
})
