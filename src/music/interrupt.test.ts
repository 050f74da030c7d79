import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Client, TestApp } from '../../tests/support/app.ts'
import { makeTone, type MediaServer, type TestMedia } from '../../tests/support/media.ts'
import { filesUnder, listJobs, musicForm, postForm, startMusicTestApp, toolProcesses, userIdOf, waitForJob } from '../../tests/support/music.ts'
import { jobDir } from './files.ts'
import { musicJobs, removeExpiredMusicJobs } from './jobs.ts'
import { insertMusicJob, updateMusicJob } from './queries.ts'

// Jobs that end early (time limit, deletion while running), retention, and
// the start-up hook that re-enqueues jobs the queue lost.
setDefaultTimeout(30_000)

let t: TestApp
let media: MediaServer
let files: TestMedia
let alice: Client
let userId: string

beforeAll(async () => {
  ;({ media, files, alice } = t = await startMusicTestApp({ JOB_TIMEOUT_SECONDS: '2', JOB_RETENTION_DAYS: '30' }))
  userId = await userIdOf(t, alice)
  const long = join(t.ctx.env.DATA_DIR, 'long.mp3')
  await makeTone(long, 10)
  media.addFile('long.mp3', long)
  media.slowRate = 8 * 1024 // far longer than the 2 s limit
}, 60_000)
afterAll(() => t?.close())

const toolsRunning = () => toolProcesses(t.ctx.env.DATA_DIR)

async function startSlowJob(title: string) {
  const res = await postForm(alice, '/api/music/jobs/create', musicForm({ video_url: media.slowUrl('long.mp3'), title, artist: 'A', album: 'B' }))
  const { id } = (await res.json()) as { id: string }
  const until = Date.now() + 10_000
  while (toolsRunning().length === 0) {
    if (Date.now() > until) throw new Error('yt-dlp never started')
    await Bun.sleep(20)
  }
  return id
}

describe('a job that ends early', () => {
  test('past the time limit it fails, its yt-dlp is killed and its temp files removed', async () => {
    const id = await startSlowJob('Too slow')
    const job = await waitForJob(alice, id, 20_000)
    expect(job.failed).not.toBeNull()
    expect(job.completed).toBeNull()
    expect(toolsRunning()).toEqual([])
    expect(filesUnder(jobDir(t.ctx.env.DATA_DIR, userId, id))).toEqual([])
  })

  test('deleted while running: its yt-dlp is killed and its folder removed', async () => {
    const id = await startSlowJob('Deleted')
    const res = await alice.delete(`/api/music/jobs/${id}/delete`)
    expect(res.status).toBe(200)
    expect(toolsRunning()).toEqual([])
    expect(filesUnder(jobDir(t.ctx.env.DATA_DIR, userId, id))).toEqual([])
    expect((await listJobs(alice)).jobs.some((j) => j.id === id)).toBe(false)
    // nothing comes back later either
    await Bun.sleep(300)
    expect(filesUnder(jobDir(t.ctx.env.DATA_DIR, userId, id))).toEqual([])
  })
})

test('retention removes jobs finished more than JOB_RETENTION_DAYS ago, with their files', async () => {
  const make = async (title: string) => {
    const res = await postForm(alice, '/api/music/jobs/create', musicForm({ title, artist: 'A', album: 'B' }, { path: files.mp3 }))
    return waitForJob(alice, ((await res.json()) as { id: string }).id)
  }
  const [old, recent, oldFailed] = await Promise.all([make('Old'), make('Recent'), make('Old failed')])
  const days = (n: number) => new Date(Date.now() - n * 24 * 60 * 60 * 1000)
  await updateMusicJob(t.ctx.db, old.id, { completed: days(31) })
  await updateMusicJob(t.ctx.db, recent.id, { completed: days(29) })
  await updateMusicJob(t.ctx.db, oldFailed.id, { completed: null, failed: days(40) })
  expect(await removeExpiredMusicJobs(t.ctx)).toBe(2)
  const left = (await listJobs(alice)).jobs.map((j) => j.id)
  expect(left).toContain(recent.id)
  expect(left).not.toContain(old.id)
  expect(left).not.toContain(oldFailed.id)
  expect(filesUnder(jobDir(t.ctx.env.DATA_DIR, userId, old.id))).toEqual([])
  expect(filesUnder(jobDir(t.ctx.env.DATA_DIR, userId, recent.id))).toContain('output/A - Recent.mp3')
})

test('at start-up, unfinished jobs the queue lost are enqueued again, but only those whose folder is here', async () => {
  const lost = crypto.randomUUID()
  const elsewhere = crypto.randomUUID()
  const dir = jobDir(t.ctx.env.DATA_DIR, userId, lost)
  mkdirSync(dir, { recursive: true })
  copyFileSync(files.mp3, join(dir, 'upload.mp3'))
  const base = { userId, title: 'Lost', artist: 'A', album: 'B' }
  await insertMusicJob(t.ctx.db, { ...base, id: lost, uploadFile: 'upload.mp3', originalFilename: 'x.mp3' })
  await insertMusicJob(t.ctx.db, { ...base, id: elsewhere, title: 'Elsewhere', videoUrl: `${media.url}/audio.mp3` })
  await musicJobs.onStart!(t.ctx)
  const job = await waitForJob(alice, lost)
  expect(job.completed).not.toBeNull()
  await Bun.sleep(200)
  const other = (await listJobs(alice)).jobs.find((j) => j.id === elsewhere)!
  expect(other.completed).toBeNull()
  expect(other.failed).toBeNull()
  expect(await t.ctx.jobs.state(elsewhere)).toBe('unknown')
})
