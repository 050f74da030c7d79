import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { websocket } from 'hono/bun'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import type { Client } from '../../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../../tests/support/fake-ytdlp.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../../tests/support/media.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { ERROR_SENTENCES } from '../../tools/failure.ts'
import { watchUrl } from './audio.ts'
import { AUDIO_TOPIC, audioWaiters } from './audio-push.ts'

// Listen mode's readiness pushed over the channel socket (docs/decisions/310), heard by real
// WebSocket clients of a server on 127.0.0.1; the audio comes from the loopback media server
// through the stand-in yt-dlp.
setDefaultTimeout(60_000)

let fake: FakeYoutube
let media: MediaServer
let ytdlp: FakeYtdlp
let dir: string
let ids: string[]
let broken: string
let t: YoutubeTestApp
let server: ReturnType<typeof Bun.serve>
let base: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-audio-push-'))
  const tone = join(dir, 'tone.mp3')
  ;[fake, media] = await Promise.all([startTestFake(), startMediaServer(), makeTone(tone, 3)])
  media.addFile('tone.mp3', tone)
  const uploads = fake.channel('@tiny-kitchen').uploads
  ids = uploads.slice(0, 3)
  broken = uploads[3]!
  const urls: Record<string, string> = Object.fromEntries(ids.map((id) => [watchUrl(id), `${media.url}/files/tone.mp3`]))
  urls[watchUrl(broken)] = 'http://127.0.0.1:9/fail/private'
  ytdlp = startFakeYtdlp({ urls })
  t = await createYoutubeTestApp(fake, { YTDLP_PATH: ytdlp.path, FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com' })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.app.fetch, websocket })
  t.ctx.hub.attach(server)
  base = `127.0.0.1:${server.port}`
}, 180_000)
afterAll(async () => {
  await server?.stop(true)
  await t?.close()
  await media?.stop()
  await fake?.stop()
  ytdlp?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function follower() {
  const user = await quickUser(t)
  expect((await user.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
  await t.jobs.drain()
  return user.client
}

/** Opens the channel socket with the user's cookie and collects the audio messages it hears. */
async function listen(cookie: string) {
  const audio: unknown[] = []
  const ws = new WebSocket(`ws://${base}/api/youtube/channel/listen`, { headers: { cookie } } as never)
  ws.onmessage = (e) => {
    const m = JSON.parse(String(e.data)) as Record<string, unknown>
    if ('audio' in m) audio.push(m)
  }
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error('socket refused'))
  })
  return { ws, audio }
}

async function until(check: () => boolean, ms = 5000) {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await Bun.sleep(10)
  }
}

const post = async (c: Client, id: string) => {
  const res = await c.post(`/api/youtube/videos/${id}/audio`)
  expect(res.status).toBe(200)
  return (await res.json()) as { state: string; error: string | null }
}

describe('audio readiness over /api/youtube/channel/listen', () => {
  test('everyone who asked while it was fetched hears it ready, at once; a follower who did not ask hears nothing', async () => {
    const [a, b, c] = [await follower(), await follower(), await follower()]
    const [sa, sb, sc] = [await listen(a.cookie), await listen(b.cookie), await listen(c.cookie)]
    const id = ids[0]!
    expect(await post(a, id)).toEqual({ state: 'fetching', error: null })
    expect(await post(b, id)).toEqual({ state: 'fetching', error: null })
    expect(audioWaiters(t.ctx).size).toBe(2)
    // nothing before the fetch has ended
    await Bun.sleep(100)
    expect(sa.audio).toEqual([])
    await t.jobs.drain()
    await until(() => sa.audio.length === 1 && sb.audio.length === 1)
    for (const s of [sa, sb]) expect(s.audio).toEqual([{ videoId: id, audio: { state: 'ready', error: null } }])
    // what was pushed is what POST answers now, and the audio is there
    expect(await post(a, id)).toEqual({ state: 'ready', error: null })
    expect((await a.get(`/api/youtube/videos/${id}/audio`)).status).toBe(200)
    await Bun.sleep(200)
    expect(sc.audio).toEqual([])
    expect(audioWaiters(t.ctx).size).toBe(0)
    for (const s of [sa, sb, sc]) s.ws.close()
  })

  test('a failed fetch is pushed with its sentence', async () => {
    const a = await follower()
    const sa = await listen(a.cookie)
    expect(await post(a, broken)).toEqual({ state: 'fetching', error: null })
    await t.jobs.drain().catch(() => {})
    await until(() => sa.audio.length === 1)
    expect(sa.audio).toEqual([{ videoId: broken, audio: { state: 'failed', error: ERROR_SENTENCES.private } }])
    expect(await post(a, broken)).toEqual({ state: 'failed', error: ERROR_SENTENCES.private })
    sa.ws.close()
  })

  test('audio already there holds no wait; an end published by another process (through the bridge) reaches the one waiting here', async () => {
    const a = await follower()
    const sa = await listen(a.cookie)
    const ready = ids[0]!
    expect(await post(a, ready)).toEqual({ state: 'ready', error: null })
    expect(audioWaiters(t.ctx).size).toBe(0)
    const id = ids[1]!
    expect(await post(a, id)).toEqual({ state: 'fetching', error: null })
    // as src/ws/pg-bridge.ts delivers what another process's job published
    t.ctx.hub.receive(AUDIO_TOPIC, { videoId: id, state: 'ready', error: null })
    await until(() => sa.audio.length === 1)
    expect(sa.audio).toEqual([{ videoId: id, audio: { state: 'ready', error: null } }])
    // the job here ends it too: not told twice (the first end used the wait up)
    await t.jobs.drain()
    await Bun.sleep(200)
    expect(sa.audio).toHaveLength(1)
    sa.ws.close()
  })
})
