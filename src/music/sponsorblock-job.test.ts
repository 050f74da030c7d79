import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseBuffer, parseFile } from 'music-metadata'
import { createTestApp, signUp, type Client, type TestApp } from '../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../tests/support/media.ts'
import { startMusicServices, type MusicServices } from '../../tests/support/music-services.ts'
import { musicForm, postForm, waitForJob } from '../../tests/support/music.ts'

// SponsorBlock through whole music jobs: the job is given a YouTube watch link (so the pipeline
// takes it for a YouTube video and asks SponsorBlock), the stand-in yt-dlp maps that link to a
// 20-second tone on the loopback media server (Debian's yt-dlp downloads it from there, never
// from YouTube), and the SponsorBlock stand-in answers the hash-prefix API with the real JSON
// shape. The MP3 the job made is downloaded through the API and measured with music-metadata.
setDefaultTimeout(60_000)

const CUT_ID = 'tunefeedCut'
const DOWN_ID = 'tunefeedOut'
const PAST_ID = 'tunefeedEnd'
const watch = (id: string) => `https://www.youtube.com/watch?v=${id}`
const OUTAGE = 'SponsorBlock could not be reached: converted without removing non-music parts.'

let t: TestApp
let media: MediaServer
let services: MusicServices
let fake: FakeYtdlp
let alice: Client
let dir: string
let sourceSeconds: number

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-sb-job-'))
  const tone = join(dir, 'tone.mp3')
  ;[media, services] = await Promise.all([startMediaServer(), startMusicServices(), makeTone(tone, 20)])
  media.addFile('tone.mp3', tone)
  sourceSeconds = (await parseFile(tone, { duration: true })).format.duration!
  const source = `${media.url}/files/tone.mp3`
  fake = startFakeYtdlp({ urls: { [watch(CUT_ID)]: source, [watch(DOWN_ID)]: source, [watch(PAST_ID)]: source } })
  // one music_offtopic segment to cut, and a sponsor segment the job does not ask for
  for (const id of [CUT_ID, DOWN_ID]) {
    services.segments.set(id, [
      { category: 'music_offtopic', segment: [4, 9] },
      { category: 'sponsor', segment: [12, 14] },
    ])
  }
  // segments timed on a longer upload than the one downloaded: one runs past the end, one starts after it
  services.segments.set(PAST_ID, [
    { category: 'music_offtopic', segment: [17, 30] },
    { category: 'music_offtopic', segment: [40, 45] },
  ])
  // www.youtube.com is allowed by name: the URL guard does not resolve it, and nothing fetches it
  t = await createTestApp({
    env: { FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com', YTDLP_PATH: fake.path, SPONSORBLOCK_URL: services.sbUrl },
  })
  ;({ client: alice } = await signUp(t))
}, 60_000)
afterAll(async () => {
  await t?.close()
  await Promise.all([media?.stop(), services?.stop()])
  fake?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function runJob(videoUrl: string, removeSegments?: string) {
  const fields: Record<string, string> = { video_url: videoUrl, title: 'Song', artist: 'Band', album: 'Record' }
  if (removeSegments) fields.remove_segments = removeSegments
  const res = await postForm(alice, '/api/music/jobs/create', musicForm(fields))
  expect(res.status).toBe(201)
  const job = await waitForJob(alice, ((await res.json()) as { id: string }).id, 45_000)
  expect(job.failed).toBeNull()
  expect(job.completed).toMatch(/Z$/)
  const download = await alice.request(job.downloadUrl!)
  expect(download.status).toBe(200)
  const bytes = new Uint8Array(await download.arrayBuffer())
  const seconds = (await parseBuffer(bytes, { mimeType: 'audio/mpeg' }, { duration: true })).format.duration!
  return { job, seconds }
}

const asked = () => services.sbRequests.length

describe('SponsorBlock through a music job', () => {
  test('a YouTube link loses its music_offtopic segment (5 s ± 0.5 s shorter) and the job says so', async () => {
    const before = asked()
    const { job, seconds } = await runJob(watch(CUT_ID), 'music_offtopic')
    expect(job.notice).toBe('Removed 1 non-music part (0:05 in all).')
    // the sponsor segment (not asked for) stays: only 5 s are gone
    expect(Math.abs(sourceSeconds - 5 - seconds)).toBeLessThanOrEqual(0.5)
    // one hash-prefix request: 4 hex characters, never the id, only the asked category
    const requests = services.sbRequests.slice(before)
    expect(requests).toHaveLength(1)
    expect(requests[0]).not.toContain(CUT_ID)
    expect(requests[0]).toMatch(/^\/sb\/api\/skipSegments\/[0-9a-f]{4}\?/)
    expect(new URL(requests[0]!, 'http://x').searchParams.get('categories')).toBe('["music_offtopic"]')
    // yt-dlp was handed the YouTube link itself (the stand-in mapped it to loopback)
    expect(fake.calls().some((args) => args.at(-1) === watch(CUT_ID))).toBe(true)
  })

  test('a segment past the end of the download is cut short and counted as what was removed', async () => {
    const { job, seconds } = await runJob(watch(PAST_ID), 'music_offtopic')
    const removed = sourceSeconds - 17
    expect(job.notice).toBe(`Removed 1 non-music part (0:${String(Math.round(removed)).padStart(2, '0')} in all).`)
    expect(Math.abs(sourceSeconds - removed - seconds)).toBeLessThanOrEqual(0.5)
  })

  test('SponsorBlock down: the job finishes uncut and says so', async () => {
    services.sponsorBlockDown = true
    try {
      const before = asked()
      const { job, seconds } = await runJob(watch(DOWN_ID), 'music_offtopic')
      expect(asked()).toBe(before + 1)
      expect(job.notice).toBe(OUTAGE)
      expect(Math.abs(sourceSeconds - seconds)).toBeLessThanOrEqual(0.5)
    } finally {
      services.sponsorBlockDown = false
    }
  })

  test('not a YouTube link, or no categories asked: SponsorBlock is not asked and nothing is cut', async () => {
    const before = asked()
    const [other, unasked] = await Promise.all([runJob(`${media.url}/files/tone.mp3`, 'music_offtopic'), runJob(watch(CUT_ID))])
    expect(asked()).toBe(before)
    for (const { job, seconds } of [other, unasked]) {
      expect(job.notice).toBeNull()
      expect(Math.abs(sourceSeconds - seconds)).toBeLessThanOrEqual(0.5)
    }
  })
})
