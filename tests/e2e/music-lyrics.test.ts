import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import type { MusicJob } from '../../src/music/schema.ts'
import { axeFindings } from '../support/axe.ts'
import { launchBrowser } from '../support/browser.ts'
import { adminCommand, openLoggedInPage, type WatchedPage } from '../support/e2e.ts'
import { type Lrclib, startLrclib } from '../support/lrclib.ts'
import { makeTone } from '../support/media.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// Lyrics in the Music Downloader's in-page player (issue 35), in Chromium against the real server
// process: two uploads finish through the real queue and ffmpeg, their lyrics looked up at the
// LRCLIB stand-in (one synced, one plain). Playing the synced one shows its lines with their
// times and marks the one being sung as the audio moves; the plain one shows as text; the lyrics
// are reached by keyboard, fit a phone's width and have no serious axe finding. The admin page
// says where the look-up goes.

const PHONE = { width: 390, height: 844 }
let server: ServerProcess
let browser: Browser
let lrclib: Lrclib
let dataDir: string
let watched: WatchedPage
let page: Page
const ADMIN = { email: 'lyrics-e2e@example.com', password: 'lyrics-e2e-password' }

async function upload(title: string, file: string): Promise<string> {
  const res = await page.request.post('/api/music/jobs/create', {
    multipart: { title, artist: 'The Dawn', album: 'Morning', file: { name: `${title}.mp3`, mimeType: 'audio/mpeg', buffer: Buffer.from(await Bun.file(file).arrayBuffer()) } },
  })
  expect(res.status()).toBe(201)
  return ((await res.json()) as { id: string }).id
}

async function finished(id: string): Promise<MusicJob> {
  const until = Date.now() + 60_000
  for (;;) {
    const res = await page.request.get('/api/music/jobs/list?page=1&per_page=50')
    const job = ((await res.json()) as { jobs: MusicJob[] }).jobs.find((j) => j.id === id)!
    if (job.completed || job.failed) return job
    if (Date.now() > until) throw new Error(`job ${id} did not finish: ${JSON.stringify(job)}`)
    await Bun.sleep(200)
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-lyrics-e2e-'))
  const tone = join(dataDir, 'tone.mp3')
  lrclib = startLrclib()
  lrclib.tracks.set('The Dawn|First Light', {
    instrumental: false,
    plainLyrics: 'Morning comes\nAnd the light\nFills the room',
    syncedLyrics: '[00:00.50] Morning comes\n[00:03.00] And the light\n[00:06.00] Fills the room',
  })
  lrclib.tracks.set('The Dawn|Plain Song', { instrumental: false, plainLyrics: 'Only words\nno times here', syncedLyrics: null })
  await Promise.all([makeTone(tone, 10), ensureWebBuild(), adminCommand(['create-user', ADMIN.email, ADMIN.password, '--admin'], { DATA_DIR: dataDir })])
  ;[server, browser] = await Promise.all([
    startServerProcess({ DATA_DIR: dataDir, RATE_LIMIT_MAX: '1000', LYRICS_URL: lrclib.url, FETCH_ALLOW_HOSTS: '127.0.0.1' }),
    launchBrowser(),
  ])
  // bypassCSP: axe-core is injected into the page (tests/support/axe.ts)
  watched = await openLoggedInPage(browser, { baseURL: server.url, viewport: PHONE, bypassCSP: true }, ADMIN)
  page = watched.page
  const jobs = await Promise.all([upload('First Light', tone), upload('Plain Song', tone)])
  for (const id of jobs) expect((await finished(id)).lyrics).toMatchObject({ source: 'lookup' })
}, 240_000)

afterAll(async () => {
  await watched?.context.close()
  await browser?.close()
  await server?.stop()
  await lrclib?.stop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

test('the in-page player shows the lyrics: synced lines with times, the sung one marked; plain text; keyboard, axe, phone width', async () => {
  await page.goto('/music/downloader')

  // synced: every line with its time, in order
  await page.getByRole('button', { name: 'Play First Light' }).click()
  const region = page.getByRole('region', { name: 'Lyrics of First Light' })
  const list = region.getByRole('list', { name: 'Lyrics, with times' })
  await list.waitFor()
  const lines = (l: typeof list) => l.getByRole('listitem').evaluateAll((els) => els.map((li) => [li.querySelector('time')?.textContent ?? null, li.querySelector('span')?.textContent]))
  expect(await lines(list)).toEqual([
    ['0:00', 'Morning comes'],
    ['0:03', 'And the light'],
    ['0:06', 'Fills the room'],
  ])
  const audio = page.locator('audio')
  const current = () => list.locator('[aria-current="true"]').innerText()
  // the sung line follows the audio (moved by seeking: media time does not follow the test clock)
  await audio.evaluate((a: HTMLAudioElement) => {
    a.pause()
    a.currentTime = 3.5
  })
  await page.waitForFunction(() => document.querySelector('[aria-current="true"]')?.textContent?.includes('And the light'))
  expect(await current()).toContain('0:03')
  await audio.evaluate((a: HTMLAudioElement) => {
    a.currentTime = 6.2
  })
  await page.waitForFunction(() => document.querySelector('[aria-current="true"]')?.textContent?.includes('Fills the room'))
  expect(await list.locator('[aria-current="true"]').count()).toBe(1)

  // reached by keyboard: the close button, then the lyrics list
  await page.getByRole('button', { name: 'Close player' }).focus()
  await page.keyboard.press('Tab')
  expect(await list.evaluate((el) => el === document.activeElement)).toBe(true)
  // a phone's width: nothing wider than the screen
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
  const box = (await region.boundingBox())!
  expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width)
  expect(await axeFindings(page, 'music player with synced lyrics, phone')).toEqual([])

  // plain: the text, no times, nothing marked
  await page.getByRole('button', { name: 'Play Plain Song' }).click()
  const plain = page.getByRole('region', { name: 'Lyrics of Plain Song' }).getByRole('list', { name: 'Lyrics' })
  await plain.waitFor()
  expect(await lines(plain)).toEqual([
    [null, 'Only words'],
    [null, 'no times here'],
  ])
  expect(await plain.locator('[aria-current]').count()).toBe(0)
  expect(await axeFindings(page, 'music player with plain lyrics, phone')).toEqual([])

  // the admin page names where the look-up goes and how to turn it off
  await page.goto('/admin')
  const fact = page.getByText('are sent to')
  await fact.waitFor()
  expect(await fact.innerText()).toContain(lrclib.url)
  expect(await fact.innerText()).toContain('LYRICS_URL=off')
  expect(watched.pageErrors).toEqual([])
}, 120_000)
