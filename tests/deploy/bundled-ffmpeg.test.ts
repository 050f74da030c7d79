import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseBuffer } from 'music-metadata'
import { testMedia } from '../support/media.ts'
import { run, type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { createMusicJob, HttpClient, waitForMusicJobs } from './support.ts'

// `npm install && npm start` on a machine without ffmpeg: the server runs with a PATH that holds
// only yt-dlp (no ffmpeg anywhere on it), finds the ffmpeg carried inside the
// @ffmpeg-installer/ffmpeg package, says so in the admin status and /api/health, and an upload
// job completes with it.

const work = mkdtempSync(join(tmpdir(), 'tunefeed-bundled-ffmpeg-'))
const dataDir = join(work, 'data')
const bin = join(work, 'bin')
const email = 'ffmpeg-admin@example.com'
const password = 'password123'
let server: ServerProcess
let client: HttpClient

beforeAll(async () => {
  mkdirSync(bin)
  symlinkSync('/usr/bin/yt-dlp', join(bin, 'yt-dlp'))
  const created = await run([process.execPath, 'scripts/admin.ts', 'create-user', email, password, '--admin'], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, 120_000)
  if (created.code !== 0) throw new Error(`create-user failed: ${created.stdout}\n${created.stderr}`)
  server = await startServerProcess({ DATA_DIR: dataDir, PATH: bin })
  client = new HttpClient(server.url)
  const login = await client.json('/api/auth/login', { email, password })
  expect(login.status).toBe(200)
}, 120_000)
afterAll(async () => {
  await server?.stop()
  rmSync(work, { recursive: true, force: true })
})

describe('no ffmpeg on PATH', () => {
  test('the bundled ffmpeg is found and reported, with advice to use the system one', async () => {
    const health = await client.request('/api/health')
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ status: 'ok', ffmpeg: 'ok', ytdlp: 'ok' })
    const res = await client.request('/api/admin/status')
    expect(res.status).toBe(200)
    const { tools } = (await res.json()) as { tools: { ffmpeg: { source: string; path: string; version: string; advice: string } } }
    expect(tools.ffmpeg.source).toBe('@ffmpeg-installer/ffmpeg')
    expect(tools.ffmpeg.path).toContain('node_modules/@ffmpeg-installer/')
    expect(tools.ffmpeg.version).toBeTruthy()
    expect(tools.ffmpeg.advice).toMatch(/system ffmpeg/)
  })

  test('an upload job completes with it', async () => {
    const media = await testMedia()
    const id = await createMusicJob(client, media.wav, { title: 'Bundled', artist: 'No System FFmpeg' })
    const [job] = await waitForMusicJobs(client, [id])
    expect(job!.failed).toBeNull()
    expect(job!.completed).toMatch(/Z$/)
    const mp3 = await client.request(job!.downloadUrl!)
    expect(mp3.status).toBe(200)
    const meta = await parseBuffer(new Uint8Array(await mp3.arrayBuffer()), { mimeType: 'audio/mpeg' })
    expect(meta.format.codec).toMatch(/MPEG 1 Layer 3/)
    expect(meta.common.title).toBe('Bundled')
  })
})
