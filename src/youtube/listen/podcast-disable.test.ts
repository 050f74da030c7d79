import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { and, eq, sql } from 'drizzle-orm'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import { Client } from '../../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../../tests/support/fake-ytdlp.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../../tests/support/media.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { watchUrl } from './audio.ts'
import { podcastEpisodesJob } from './jobs.ts'
import { youtubeAudio, youtubePodcastEpisodes } from './tables.ts'

// A disabled person's podcasts end at once (issue 32, finding 6): their feed addresses answer
// 404, their queued episodes are not fetched, the hourly pass leaves them out. Enabling the
// account again brings the same addresses back with what was made.
setDefaultTimeout(60_000)

let fake: FakeYoutube
let media: MediaServer
let ytdlp: FakeYtdlp
let dir: string
let t: YoutubeTestApp
let owner: Awaited<ReturnType<typeof quickUser>>
let admin: Awaited<ReturnType<typeof quickUser>>
let channelId: string
let plain: string[]

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-podcast-disable-'))
  const tone = join(dir, 'tone.mp3')
  ;[fake, media] = await Promise.all([startTestFake(), startMediaServer(), makeTone(tone, 6)])
  media.addFile('tone.mp3', tone)
  const channel = fake.channel('@star-lab')
  channelId = channel.id
  plain = channel.uploads.filter((id) => fake.videos.get(id)!.kind === 'video')
  const urls = Object.fromEntries([...channel.uploads, 'freshUpload'].map((id) => [watchUrl(id), `${media.url}/files/tone.mp3`]))
  ytdlp = startFakeYtdlp({ urls })
  // SponsorBlock unreachable: episodes are made uncut, which is all this needs
  t = await createYoutubeTestApp(fake, { YTDLP_PATH: ytdlp.path, SPONSORBLOCK_URL: 'http://127.0.0.1:9/sb', FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com' })
  owner = await quickUser(t)
  admin = await quickUser(t, { admin: true })
  expect((await owner.client.put('/api/youtube/subscriptions/user?channel_id=@star-lab')).status).toBe(200)
  await t.jobs.drain()
}, 60_000)
afterAll(async () => {
  await t?.close()
  await media?.stop()
  await fake?.stop()
  ytdlp?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const anon = () => new Client(t)
const path = (url: string) => new URL(url).pathname
const runHourly = () => podcastEpisodesJob.run(t.ctx, {}, { id: 'hourly', attempt: 1, attempts: 1, signal: new AbortController().signal, progress: async () => {} })
const fetchesOf = (videoId: string) => ytdlp.calls().filter((c) => c.at(-1) === watchUrl(videoId)).length
const setDisabled = async (disabled: boolean) => {
  const res = await admin.client.request(`/api/admin/users/${owner.id}`, { method: 'PATCH', json: { disabled } })
  expect(res.status).toBe(200)
}

test("disabling ends the person's feeds at once and their episodes are not fetched; enabling brings them back", async () => {
  expect((await owner.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 1 })).status).toBe(200)
  await t.jobs.drain()
  const list = (await (await owner.client.get('/api/youtube/podcasts')).json()) as { feeds: { url: string }[]; allUrl: string; opmlUrl: string }
  const feed = await (await anon().request(path(list.feeds[0]!.url))).text()
  const audio = /<enclosure url="([^"]+)"/.exec(feed)![1]!
  const addresses = [list.feeds[0]!.url, list.allUrl, list.opmlUrl, audio]
  for (const url of addresses) expect((await anon().request(path(url))).status).toBe(200)

  // one more episode asked for, still waiting in the queue when the account is disabled
  expect((await owner.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 2 })).status).toBe(200)
  expect(t.jobs.waiting.map((j) => [j.def.name, (j.payload as { videoId: string }).videoId])).toEqual([['youtube.podcastEpisode', plain[1]]])
  await setDisabled(true)
  for (const url of addresses) {
    const res = await anon().request(path(url))
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ detail: 'Not found.' })
  }
  // the queued episode runs and fetches nothing; its waiting row goes
  await t.jobs.drain()
  expect(fetchesOf(plain[1]!)).toBe(0)
  expect(await t.ctx.db.select().from(youtubeAudio).where(eq(youtubeAudio.videoId, plain[1]!))).toEqual([])
  expect(await t.ctx.db.select().from(youtubePodcastEpisodes).where(eq(youtubePodcastEpisodes.videoId, plain[1]!))).toEqual([])

  // a new upload: the hourly pass queues nothing for a disabled person
  await t.ctx.db.execute(
    sql`insert into youtube_videos (id, channel_id, title, published_at, category_id, duration, kind) values ('freshUpload', ${channelId}, 'Fresh', now(), 28, 6, 'video')`,
  )
  await runHourly()
  expect(t.jobs.waiting).toEqual([])

  // enabled again: the same addresses answer with what was made; the hourly pass fetches again
  await setDisabled(false)
  for (const url of addresses) expect((await anon().request(path(url))).status).toBe(200)
  await runHourly()
  await t.jobs.drain()
  expect(fetchesOf('freshUpload')).toBe(1)
  const [made] = await t.ctx.db
    .select({ state: youtubePodcastEpisodes.state })
    .from(youtubePodcastEpisodes)
    .where(and(eq(youtubePodcastEpisodes.videoId, 'freshUpload')))
  expect(made?.state).toBe('ready')
})
