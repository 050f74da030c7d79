import { afterAll, beforeAll, expect, test } from 'bun:test'
import { quickUser, startYoutubeTestApp, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { refreshChannelJob } from '../jobs.ts'

// A new upload of a channel whose podcast is on becomes an episode right after the refresh that
// found it (a poll or a push), not at the hourly pass.
let t: YoutubeTestApp

beforeAll(async () => {
  t = await startYoutubeTestApp()
}, 60_000)
afterAll(() => t.close())

const job = { id: 'refresh', attempt: 1, attempts: 1, signal: new AbortController().signal, progress: async () => {} }

test('the refresh that finds an upload queues its episode; channels without a podcast queue none', async () => {
  const user = await quickUser(t)
  const kitchen = t.fake.channel('@tiny-kitchen')
  const star = t.fake.channel('@star-lab')
  for (const h of ['@tiny-kitchen', '@star-lab']) expect((await user.client.put(`/api/youtube/subscriptions/user?channel_id=${h}`)).status).toBe(200)
  await t.jobs.drain()
  expect((await user.client.put(`/api/youtube/channels/${kitchen.id}/podcast`, { enabled: true, keepLast: 2 })).status).toBe(200)
  // the switch's own episodes are not what this test is about
  t.jobs.waiting = []
  const [fresh] = t.fake.addUploads(kitchen.id, 1)
  t.fake.addUploads(star.id, 1)
  await refreshChannelJob.run(t.ctx, { channelId: kitchen.id }, job)
  const episodes = t.jobs.waiting.filter((j) => j.def.name === 'youtube.podcastEpisode').map((j) => (j.payload as { videoId: string }).videoId)
  expect(episodes).toContain(fresh!.id)
  t.jobs.waiting = []
  await refreshChannelJob.run(t.ctx, { channelId: star.id }, job)
  expect(t.jobs.waiting.filter((j) => j.def.name === 'youtube.podcastEpisode')).toEqual([])
})
