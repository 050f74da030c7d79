import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestApp, signUp, type Client, type TestApp } from '../../tests/support/app.ts'
import { ffmpeg, testMedia } from '../../tests/support/media.ts'
import { musicForm, postForm, toolProcesses, userIdOf, waitForJob } from '../../tests/support/music.ts'
import { jobDir } from '../music/files.ts'
import { imageSize } from '../music/square.ts'
import { COVER_STEPS, snapCoverSize } from './covers.ts'

// Issue 32 finding 3: an artwork bomb (a small PNG of 6000 × 6000 px, made here by ffmpeg) given
// as a job's artwork is stored at most 4096 px on a side; getCoverArt asked for many sizes at
// once runs at most two ffmpeg scalings (counted from /proc by their command line, which names
// the job's folder) and never answers an image larger than the size asked.
setDefaultTimeout(120_000)

let t: TestApp
let alice: Client
let apiKey: string
let work: string
let jobId: string
let userId: string

beforeAll(async () => {
  t = await createTestApp()
  ;({ client: alice } = await signUp(t))
  userId = await userIdOf(t, alice)
  apiKey = ((await (await alice.post('/api/auth/tokens', { name: 'player' })).json()) as { token: string }).token
  work = mkdtempSync(join(tmpdir(), 'tunefeed-bomb-'))
  const bomb = join(work, 'bomb.png')
  await ffmpeg(['-f', 'lavfi', '-i', 'color=c=0x336699:s=6000x6000', '-frames:v', '1', bomb])
  const png = readFileSync(bomb)
  expect(png.length).toBeLessThan(1024 * 1024)
  expect(imageSize(png)).toEqual({ width: 6000, height: 6000 })
  const files = await testMedia()
  const res = await postForm(
    alice,
    '/api/music/jobs/create',
    musicForm({ title: 'Bomb', artist: 'Cover', album: 'Bounds', artwork_url: `data:image/png;base64,${png.toString('base64')}` }, { path: files.mp3, name: 'a.mp3', type: 'audio/mpeg' }),
  )
  expect(res.status).toBe(201)
  jobId = ((await res.json()) as { id: string }).id
  const job = await waitForJob(alice, jobId, 60_000)
  expect(job.failed).toBeNull()
})
afterAll(async () => {
  await t?.close()
  rmSync(work, { recursive: true, force: true })
})

describe('artwork bounds', () => {
  test('artwork larger than 4096 px on a side is stored scaled down', async () => {
    const dir = jobDir(t.ctx.env.DATA_DIR, userId, jobId)
    const stored = readdirSync(dir).filter((f) => f.startsWith('artwork.'))
    expect(stored).toEqual(['artwork.jpg'])
    expect(imageSize(new Uint8Array(readFileSync(join(dir, 'artwork.jpg'))))).toEqual({ width: 4096, height: 4096 })
    // and the job's own artwork route answers that one
    const art = await alice.get(`/api/music/jobs/${jobId}/artwork`)
    expect(art.status).toBe(200)
    expect(imageSize(new Uint8Array(await art.arrayBuffer()))).toEqual({ width: 4096, height: 4096 })
  })

  test('getCoverArt: parallel sizes run at most two ffmpeg scalings and answer at most the size asked', async () => {
    const dir = jobDir(t.ctx.env.DATA_DIR, userId, jobId)
    let most = 0
    let watching = true
    const watcher = (async () => {
      while (watching) {
        most = Math.max(most, toolProcesses(dir).length)
        await Bun.sleep(5)
      }
    })()
    const sizes = [2047, 1000, 700, 500, 300, 100, 40, 20]
    const answers = await Promise.all(
      sizes.map(async (size) => {
        const res = await t.app.request(`/rest/getCoverArt?apiKey=${apiKey}&v=1.16.1&c=test&f=json&id=co-${jobId}&size=${size}`)
        expect(res.status).toBe(200)
        expect(res.headers.get('content-type')).toBe('image/jpeg')
        return { size, dims: imageSize(new Uint8Array(await res.arrayBuffer())) }
      }),
    )
    watching = false
    await watcher
    for (const { size, dims } of answers) {
      expect({ size, fits: dims!.width <= size && dims!.height <= size }).toEqual({ size, fits: true })
      expect(dims!.width).toBe(snapCoverSize(size))
    }
    // the scalings were seen, never more than two at once
    expect(most).toBeGreaterThan(0)
    expect(most).toBeLessThanOrEqual(2)
    // one file per step made
    expect(readdirSync(join(dir, 'covers')).sort()).toHaveLength(new Set(sizes.map(snapCoverSize)).size)
  })

  test('sizes snap down to a few steps; below the smallest, the size asked', () => {
    expect(snapCoverSize(2047)).toBe(1536)
    expect(snapCoverSize(300)).toBe(256)
    expect(snapCoverSize(64)).toBe(64)
    expect(snapCoverSize(20)).toBe(20)
    expect(snapCoverSize(100_000)).toBe(COVER_STEPS[COVER_STEPS.length - 1]!)
  })
})
