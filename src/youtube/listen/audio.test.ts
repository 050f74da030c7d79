import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import { Client } from '../../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../../tests/support/fake-ytdlp.ts'
import { expectError } from '../../../tests/support/http.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../../tests/support/media.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { YOUTUBE_UNREACHABLE } from '../../lib/unreachable.ts'
import { ERROR_SENTENCES } from '../../tools/failure.ts'
import { AUDIO_FORMAT } from '../../tools/ytdlp.ts'
import { audioDir, watchUrl } from './audio.ts'

// Listen mode's audio: a followed channel's videos, whose watch URLs the stand-in yt-dlp maps to
// a tone on the loopback media server (Debian's yt-dlp downloads it from there, never from YouTube).
setDefaultTimeout(60_000)

let fake: FakeYoutube
let media: MediaServer
let ytdlp: FakeYtdlp
let dir: string
let toneBytes: number
let ids: string[]
let broken: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-listen-audio-'))
  const tone = join(dir, 'tone.mp3')
  ;[fake, media] = await Promise.all([startTestFake(), startMediaServer(), makeTone(tone, 5)])
  media.addFile('tone.mp3', tone)
  toneBytes = statSync(tone).size
  const uploads = fake.channel('@tiny-kitchen').uploads
  ids = uploads.slice(0, 4)
  broken = uploads[4]!
  const urls: Record<string, string> = Object.fromEntries(ids.map((id) => [watchUrl(id), `${media.url}/files/tone.mp3`]))
  urls[watchUrl(broken)] = 'http://127.0.0.1:9/fail/private'
  ytdlp = startFakeYtdlp({ urls })
}, 60_000)
afterAll(async () => {
  await media?.stop()
  await fake?.stop()
  ytdlp?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function appWith(env: Record<string, string> = {}) {
  // www.youtube.com is allowed by name: the URL guard does not resolve it, and nothing fetches it
  const t = await createYoutubeTestApp(fake, { YTDLP_PATH: ytdlp.path, FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com', ...env })
  const user = await quickUser(t)
  expect((await user.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
  await t.jobs.drain()
  return { t, user }
}

const post = async (c: Client, id: string) => {
  const res = await c.post(`/api/youtube/videos/${id}/audio`)
  expect(res.status).toBe(200)
  return (await res.json()) as { state: string; error: string | null }
}

describe('audio', () => {
  let t: YoutubeTestApp
  let a: Client
  beforeAll(async () => {
    const made = await appWith()
    t = made.t
    a = made.user.client
  }, 60_000)
  afterAll(() => t?.close())

  test('POST starts one fetch (best audio, no re-encoding); GET serves it with ranges and HEAD', async () => {
    const id = ids[0]!
    await expectError(a.get(`/api/youtube/videos/${id}/audio`), 404, 'Audio not ready.')
    expect(await post(a, id)).toEqual({ state: 'fetching', error: null })
    // under way: reported as such, not queued twice
    expect(await post(a, id)).toEqual({ state: 'fetching', error: null })
    expect(t.jobs.waiting.filter((j) => j.def.name === 'youtube.audio')).toHaveLength(1)
    await expectError(a.get(`/api/youtube/videos/${id}/audio`), 404, 'Audio not ready.')
    await t.jobs.drain()
    expect(await post(a, id)).toEqual({ state: 'ready', error: null })
    expect(t.jobs.waiting).toHaveLength(0)

    const call = ytdlp.calls().find((args) => args.at(-1) === watchUrl(id))!
    expect(call[call.indexOf('-f') + 1]).toBe(AUDIO_FORMAT)
    for (const flag of ['-x', '--extract-audio', '--audio-format', '--recode-video']) expect(call).not.toContain(flag)

    const whole = await a.get(`/api/youtube/videos/${id}/audio`)
    expect(whole.status).toBe(200)
    expect(whole.headers.get('content-type')).toBe('audio/mpeg')
    expect(whole.headers.get('accept-ranges')).toBe('bytes')
    const bytes = new Uint8Array(await whole.arrayBuffer())
    expect(bytes.length).toBe(toneBytes)
    const part = await a.request(`/api/youtube/videos/${id}/audio`, { headers: { range: 'bytes=100-199' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${toneBytes}`)
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(100, 200))
    const head = await a.request(`/api/youtube/videos/${id}/audio`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(toneBytes))
    expect(head.headers.get('content-type')).toBe('audio/mpeg')
    expect((await head.arrayBuffer()).byteLength).toBe(0)
    // no work folder left behind
    expect((await readdir(audioDir(t.ctx))).filter((f) => f.startsWith('.fetch'))).toEqual([])
  })

  test('a failed fetch says why in a sentence for a minute; then POST starts over', async () => {
    expect(await post(a, broken)).toEqual({ state: 'fetching', error: null })
    await t.jobs.drain().catch(() => {})
    expect(await post(a, broken)).toEqual({ state: 'failed', error: ERROR_SENTENCES.private })
    expect(t.jobs.waiting).toHaveLength(0)
    await expectError(a.get(`/api/youtube/videos/${broken}/audio`), 404, 'Audio not ready.')
    await t.ctx.db.execute(sql`update youtube_audio set failed_at = now() - interval '2 minutes' where video_id = ${broken}`)
    expect(await post(a, broken)).toEqual({ state: 'fetching', error: null })
    await t.jobs.drain().catch(() => {})
    expect(await post(a, broken)).toEqual({ state: 'failed', error: ERROR_SENTENCES.private })
    expect(ytdlp.calls().filter((args) => args.at(-1) === watchUrl(broken))).toHaveLength(2)
  })

  test('no route to YouTube (its name does not resolve): the one sentence that says so, not "try again later"', async () => {
    const offline = fake.channel('@tiny-kitchen').uploads[5]!
    ytdlp.mapUrl(watchUrl(offline), 'http://127.0.0.1:9/fail/dns')
    expect(await post(a, offline)).toEqual({ state: 'fetching', error: null })
    await t.jobs.drain().catch(() => {})
    expect(await post(a, offline)).toEqual({ state: 'failed', error: YOUTUBE_UNREACHABLE })
  })

  test('a ready row whose file is gone is fetched again', async () => {
    const id = ids[1]!
    await post(a, id)
    await t.jobs.drain()
    const file = `${id}.mp3`
    expect(existsSync(join(audioDir(t.ctx), file))).toBe(true)
    rmSync(join(audioDir(t.ctx), file))
    expect(await post(a, id)).toEqual({ state: 'fetching', error: null })
    await t.jobs.drain()
    expect(await post(a, id)).toEqual({ state: 'ready', error: null })
  })

  test('unknown video 404, anonymous 401', async () => {
    await expectError(a.post('/api/youtube/videos/zzzzzzzzzzz/audio'), 404, 'Youtube video not found.')
    await expectError(a.get('/api/youtube/videos/zzzzzzzzzzz/audio'), 404, 'Youtube video not found.')
    await expectError(a.get('/api/youtube/videos/not-a-video/audio'), 404, 'Youtube video not found.')
    await expectError(new Client(t).post(`/api/youtube/videos/${ids[0]}/audio`), 401, 'Unauthorized')
    await expectError(new Client(t).get(`/api/youtube/videos/${ids[0]}/audio`), 401, 'Unauthorized')
  })
})

test('the cache stays within AUDIO_CACHE_MB, least recently played removed first', async () => {
  // room for two tones, not three
  const { t, user } = await appWith({ AUDIO_CACHE_MB: String((toneBytes * 2.5) / (1024 * 1024)) })
  const a = user.client
  try {
    const [x, y, z] = ids as [string, string, string]
    for (const id of [x, y]) {
      await post(a, id)
      await t.jobs.drain()
    }
    // y was played longest ago once x is played again
    await t.ctx.db.execute(sql`update youtube_audio set played_at = now() - interval '10 minutes' where video_id = ${x}`)
    await t.ctx.db.execute(sql`update youtube_audio set played_at = now() - interval '5 minutes' where video_id = ${y}`)
    expect((await a.get(`/api/youtube/videos/${x}/audio`)).status).toBe(200)
    await post(a, z)
    await t.jobs.drain()
    expect(await post(a, z)).toEqual({ state: 'ready', error: null })
    expect((await a.get(`/api/youtube/videos/${x}/audio`)).status).toBe(200)
    await expectError(a.get(`/api/youtube/videos/${y}/audio`), 404, 'Audio not ready.')
    const files = (await readdir(audioDir(t.ctx))).filter((f) => !f.startsWith('.'))
    expect(files.sort()).toEqual([`${x}.mp3`, `${z}.mp3`].sort())
    expect(existsSync(join(audioDir(t.ctx), `${y}.mp3`))).toBe(false)
  } finally {
    await t.close()
  }
})

test('fetches take their turn at the YouTube gate: a far turn puts the job back in the queue', async () => {
  const { t, user } = await appWith({ YTDLP_SLEEP_SECONDS: '3600' })
  try {
    const { JobLater } = await import('../../jobs/types.ts')
    await post(user.client, ids[2]!)
    await t.jobs.drain()
    expect(await post(user.client, ids[2]!)).toEqual({ state: 'ready', error: null })
    const before = ytdlp.calls().length
    await post(user.client, ids[3]!)
    const err = await t.jobs.drain().then(
      () => null,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(JobLater)
    expect(ytdlp.calls().length).toBe(before)
    expect(await post(user.client, ids[3]!)).toEqual({ state: 'fetching', error: null })
  } finally {
    await t.close()
  }
})
