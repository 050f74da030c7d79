import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseBuffer } from 'music-metadata'
import { makeTone, startMediaServer, type MediaServer } from '../../tests/support/media.ts'
import { startServerProcess, type ServerProcess } from '../../tests/support/server-process.ts'
import { signUpOverHttp, toolProcesses } from '../../tests/support/music.ts'
import type { MusicJob } from './schema.ts'

// kill -9 in the middle of a job, then a restart on the same DATA_DIR: the
// job is retried and completes; the killed process's yt-dlp died with it.

const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-crash-'))
const env = { DATA_DIR: dataDir, FETCH_ALLOW_HOSTS: '127.0.0.1', JOB_CONCURRENCY: '1' }
let media: MediaServer
let server: ServerProcess | undefined

beforeAll(async () => {
  media = await startMediaServer()
  const long = join(dataDir, 'long.mp3')
  await makeTone(long, 20)
  media.addFile('long.mp3', long)
  media.slowRate = 16 * 1024 // about 30 s for the whole file: the job is mid-download when killed
}, 60_000)
afterAll(async () => {
  if (server && server.proc.exitCode === null) await server.stop('SIGKILL')
  await media?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

async function job(base: string, cookie: string, id: string): Promise<MusicJob> {
  const res = await fetch(`${base}/api/music/jobs/list?per_page=50`, { headers: { cookie } })
  const { jobs } = (await res.json()) as { jobs: MusicJob[] }
  return jobs.find((j) => j.id === id)!
}

test('a job killed with SIGKILL mid-download is retried after restart and completes', async () => {
  server = await startServerProcess(env, 120_000)
  const cookie = await signUpOverHttp(server.url, dataDir)
  const form = new FormData()
  form.append('video_url', media.slowUrl('long.mp3'))
  form.append('title', 'Survivor')
  form.append('artist', 'Crash Test')
  form.append('album', 'Recovery')
  const created = await fetch(`${server.url}/api/music/jobs/create`, { method: 'POST', body: form, headers: { cookie } })
  expect(created.status).toBe(201)
  const { id } = (await created.json()) as { id: string }

  // wait until the download is under way (progress reported), then kill -9
  const until = Date.now() + 30_000
  while ((await job(server.url, cookie, id)).progress < 3) {
    if (Date.now() > until) throw new Error('the job never made progress')
    await Bun.sleep(100)
  }
  expect(toolProcesses(dataDir).length).toBeGreaterThan(0)
  await server.stop('SIGKILL')
  // the kernel takes yt-dlp down with its parent (PR_SET_PDEATHSIG)
  const gone = Date.now() + 5000
  while (toolProcesses(dataDir).length > 0 && Date.now() < gone) await Bun.sleep(50)
  expect(toolProcesses(dataDir)).toEqual([])

  media.slowRate = 50 * 1024 * 1024
  server = await startServerProcess(env, 60_000)
  const done = Date.now() + 60_000
  let current = await job(server.url, cookie, id)
  while (!current.completed && !current.failed) {
    if (Date.now() > done) throw new Error(`job stuck: ${JSON.stringify(current)}`)
    await Bun.sleep(200)
    current = await job(server.url, cookie, id)
  }
  expect(current.failed).toBeNull()
  expect(current.completed).not.toBeNull()
  const mp3 = await fetch(`${server.url}${current.downloadUrl}`, { headers: { cookie } })
  const meta = await parseBuffer(new Uint8Array(await mp3.arrayBuffer()), { mimeType: 'audio/mpeg' })
  expect(meta.common.title).toBe('Survivor')
  expect(meta.format.duration).toBeGreaterThan(19)
  // nothing temporary is left in the job's folder
  const musicDir = join(dataDir, 'music')
  const [userDir] = readdirSync(musicDir)
  expect(readdirSync(join(musicDir, userDir!, id)).sort()).toEqual(['output'])
  expect(server.stdout()).toContain('"msg":"job done","job":"music.run"')
  expect(await server.stop('SIGTERM')).toBe(0)
}, 180_000)
