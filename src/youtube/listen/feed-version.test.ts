import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { type Client, createTestApp, signUp, type TestApp } from '../../../tests/support/app.ts'
import { rowsOf } from '../../db/rows.ts'
import { cutOf, episodeDir, episodeFile } from './episode-queries.ts'
import { DEFAULT_SPONSORBLOCK } from './schema.ts'

// The feeds' ETag comes from what they are made of (feed-version.ts): the same feed keeps its
// tag and is answered 304; each thing the body is made of changes the tag (and the body).
setDefaultTimeout(60_000)

let t: TestApp
let alice: Client
let userId: string
let feedPath: string
let allPath: string
const channelId = 'UCetagetagetagetagetag01'
const cut = cutOf(DEFAULT_SPONSORBLOCK)
const vid = (i: number) => `etag${String(i).padStart(7, '0')}`

async function addEpisode(i: number, hoursAgo: number) {
  await t.ctx.db.execute(sql`insert into youtube_videos (id, channel_id, title, description, published_at, category_id, duration, kind)
    values (${vid(i)}, ${channelId}, ${`Episode ${i}`}, 'About it.', now() - make_interval(hours => ${hoursAgo}), 22, 600, 'video')`)
  await writeFile(join(episodeDir(t.ctx), episodeFile(vid(i), cut)), new Uint8Array(1000))
  await t.ctx.db.execute(sql`insert into youtube_podcast_episodes (video_id, cut, state, file, size, duration)
    values (${vid(i)}, ${cut}, 'ready', ${episodeFile(vid(i), cut)}, 1000, 590)`)
}

beforeAll(async () => {
  t = await createTestApp()
  ;({ client: alice } = await signUp(t))
  userId = rowsOf<{ id: string }>(await t.ctx.db.execute(sql`select id from users limit 1`))[0]!.id
  await t.ctx.db.execute(sql`insert into youtube_channels (id, title, thumbnail) values (${channelId}, 'Etag Channel', '')`)
  await t.ctx.db.execute(sql`insert into youtube_subscriptions (user_id, channel_id, source) values (${userId}, ${channelId}, 'manual')`)
  await mkdir(episodeDir(t.ctx), { recursive: true })
  for (let i = 1; i <= 5; i++) await addEpisode(i, 10 * i)
  await t.ctx.db.execute(sql`insert into youtube_podcasts (user_id, channel_id, enabled, keep_last) values (${userId}, ${channelId}, true, 5)`)
  const list = (await (await alice.get('/api/youtube/podcasts')).json()) as { feeds: { url: string }[]; allUrl: string }
  feedPath = new URL(list.feeds[0]!.url).pathname
  allPath = new URL(list.allUrl).pathname
}, 240_000)
afterAll(async () => {
  await t?.close()
})

/** A podcast app's request: no cookie, maybe a tag it has. */
const get = (path: string, etag?: string, host = 'http://localhost') => t.app.request(`${host}${path}`, { headers: etag ? { 'if-none-match': etag } : {} })

/** The feed is answered 200 with a new tag (and then 304 with it); returns the new tag and body. */
async function changed(path: string, old: string) {
  const res = await get(path, old)
  expect(res.status).toBe(200)
  const etag = res.headers.get('etag')!
  expect(etag).not.toBe(old)
  const body = await res.text()
  expect((await get(path, etag)).status).toBe(304)
  return { etag, body }
}

test('the same feed keeps its tag and is answered 304 without a body; each ingredient changes it', async () => {
  const first = await get(feedPath)
  expect(first.status).toBe(200)
  let etag = first.headers.get('etag')!
  expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
  expect((await first.text()).split('<item>').length - 1).toBe(5)
  expect((await get(feedPath)).headers.get('etag')).toBe(etag)
  const notModified = await get(feedPath, etag)
  expect(notModified.status).toBe(304)
  expect(await notModified.text()).toBe('')
  expect(notModified.headers.get('etag')).toBe(etag)
  expect((await get(feedPath, `W/${etag}`)).status).toBe(304)
  // another address of the app (no PUBLIC_URL): other URLs in the body, another tag
  expect((await get(feedPath, etag, 'http://127.0.0.1:9')).status).toBe(200)

  // keepLast through the switch
  expect((await alice.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 3 })).status).toBe(200)
  let next = await changed(feedPath, etag)
  expect(next.body.split('<item>').length - 1).toBe(3)
  etag = next.etag
  // a new episode ready
  await addEpisode(6, 1)
  next = await changed(feedPath, etag)
  expect(next.body).toContain(vid(6))
  etag = next.etag
  // an episode made again (remade after SponsorBlock answered: another size and duration)
  await t.ctx.db.execute(sql`update youtube_podcast_episodes set size = 900, duration = 580, removed = 10, spans = '[[1, 11]]' where video_id = ${vid(6)}`)
  next = await changed(feedPath, etag)
  expect(next.body).toContain('length="900"')
  etag = next.etag
  // an episode taken out from a player
  await t.ctx.db.execute(sql`insert into youtube_podcast_skips (user_id, video_id) values (${userId}, ${vid(6)})`)
  next = await changed(feedPath, etag)
  expect(next.body).not.toContain(vid(6))
  etag = next.etag
  // the channel's title
  await t.ctx.db.execute(sql`update youtube_channels set title = 'Etag Channel, renamed' where id = ${channelId}`)
  next = await changed(feedPath, etag)
  expect(next.body).toContain('Etag Channel, renamed')
  etag = next.etag
  // all.xml: its own tag, 304 alike, and it follows the same changes
  const all = await get(allPath)
  const allTag = all.headers.get('etag')!
  expect(allTag).not.toBe(etag)
  expect((await get(allPath, allTag)).status).toBe(304)
  // the skip categories (the cut): the episodes with the old cut leave the feed
  expect((await alice.put('/api/youtube/sponsorblock', { categories: { sponsor: 'show' } })).status).toBe(200)
  next = await changed(feedPath, etag)
  expect(next.body.split('<item>').length - 1).toBe(0)
  await changed(allPath, allTag)
  // the podcast switched off: 404 whatever tag is sent; an unknown secret alike
  expect((await alice.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: false })).status).toBe(200)
  expect((await get(feedPath, next.etag)).status).toBe(404)
  expect((await get(feedPath.replace(/\/feeds\/[^/]+\//, `/feeds/${'x'.repeat(32)}/`), next.etag)).status).toBe(404)
})
