import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Client } from '../../../tests/support/app.ts'
import { expectError } from '../../../tests/support/http.ts'
import { quickUser, startYoutubeTestApp, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { enqueueChannelRefresh } from '../jobs.ts'
import type { VideoJson } from '../queries/feed.ts'
import { wordsOf } from './mute-match.ts'

// Groups of channels and muted words on the feed: what each leaves in, that totalPages agrees,
// that they reach only the feed, and that nobody reaches another person's group.
let t: YoutubeTestApp
let user: Awaited<ReturnType<typeof quickUser>>
let other: Awaited<ReturnType<typeof quickUser>>
const ids: Record<string, string> = {}

beforeAll(async () => {
  t = await startYoutubeTestApp()
  user = await quickUser(t)
  other = await quickUser(t)
  for (const h of ['@star-lab', '@pixel-arcade', '@tiny-kitchen']) {
    const res = await user.client.put(`/api/youtube/subscriptions/user?channel_id=${h}`)
    expect(res.status).toBe(200)
    ids[h] = ((await res.json()) as { id: string }).id
  }
  expect((await other.client.put('/api/youtube/subscriptions/user?channel_id=@retro-motors')).status).toBe(200)
  await t.jobs.drain()
}, 60_000)
afterAll(() => t.close())

async function list(c: Client, query: string): Promise<{ videos: VideoJson[]; totalPages: number }> {
  const res = await c.get(`/api/youtube/videos/list?${query}`)
  expect(res.status).toBe(200)
  return res.json()
}
const patch = (c: Client, path: string, json: unknown) => c.request(path, { method: 'PATCH', json })
const everything = async (c: Client, query: string) => (await list(c, `per_page=100&${query}`)).videos
/** The list under `query` has `expected` ids in order, and one per page counts them. */
async function expectList(c: Client, query: string, expected: string[]) {
  expect((await everything(c, query)).map((v) => v.id)).toEqual(expected)
  expect((await list(c, `per_page=1&${query}`)).totalPages).toBe(expected.length)
}

describe('groups', () => {
  let groupId: string
  test('create, list, filter the feed by it', async () => {
    const res = await user.client.post('/api/youtube/groups', { name: 'Science & games', channelIds: [ids['@star-lab'], ids['@pixel-arcade']] })
    expect(res.status).toBe(201)
    const group = (await res.json()) as { id: string; name: string; channelIds: string[] }
    expect(group).toMatchObject({ name: 'Science & games', channelIds: [ids['@star-lab'], ids['@pixel-arcade']] })
    groupId = group.id
    expect(await (await user.client.get('/api/youtube/groups')).json()).toEqual({ groups: [group] })
    const all = await everything(user.client, '')
    const inGroup = all.filter((v) => v.channel.id !== ids['@tiny-kitchen']).map((v) => v.id)
    expect(inGroup.length).toBeGreaterThan(0)
    expect(inGroup.length).toBeLessThan(all.length)
    await expectList(user.client, `group=${groupId}`, inGroup)
    // with the other filters and the deep-page plan's branches alike
    await expectList(user.client, `group=${groupId}&hide_shorts=1`, all.filter((v) => v.channel.id !== ids['@tiny-kitchen'] && v.kind !== 'short').map((v) => v.id))
    const word = all[0]!.title.split(' ')[0]!
    await expectList(
      user.client,
      `group=${groupId}&q=${encodeURIComponent(word)}`,
      all.filter((v) => v.channel.id !== ids['@tiny-kitchen'] && wordsOf(v.title).some((w) => w.startsWith(word.toLowerCase()))).map((v) => v.id),
    )
    const second = await list(user.client, `group=${groupId}&per_page=5&page=3`)
    expect(second.videos.map((v) => v.id)).toEqual(inGroup.slice(10, 15))
  })

  test('an empty group lists nothing; a channel may be in several groups', async () => {
    const empty = (await (await user.client.post('/api/youtube/groups', { name: 'Later', channelIds: [] })).json()) as { id: string }
    await expectList(user.client, `group=${empty.id}`, [])
    const res = await user.client.post('/api/youtube/groups', { name: 'Stars', channelIds: [ids['@star-lab']] })
    expect(res.status).toBe(201)
  })

  test('rename and change channels; delete', async () => {
    const res = await patch(user.client, `/api/youtube/groups/${groupId}`, { name: 'Games' })
    expect(await res.json()).toMatchObject({ id: groupId, name: 'Games', channelIds: [ids['@star-lab'], ids['@pixel-arcade']] })
    const changed = await patch(user.client, `/api/youtube/groups/${groupId}`, { channelIds: [ids['@pixel-arcade']] })
    expect(await changed.json()).toEqual({ id: groupId, name: 'Games', channelIds: [ids['@pixel-arcade']] })
    const all = await everything(user.client, '')
    await expectList(user.client, `group=${groupId}`, all.filter((v) => v.channel.id === ids['@pixel-arcade']).map((v) => v.id))
    const made = (await (await user.client.post('/api/youtube/groups', { name: 'Gone soon', channelIds: [] })).json()) as { id: string }
    expect((await user.client.delete(`/api/youtube/groups/${made.id}`)).status).toBe(204)
    await expectError(user.client.delete(`/api/youtube/groups/${made.id}`), 404, 'Group not found.')
    await expectError(user.client.get(`/api/youtube/videos/list?group=${made.id}`), 404, 'Group not found.')
  })

  test("another user's group is not found anywhere; unknown and malformed ids too", async () => {
    for (const id of [groupId, crypto.randomUUID(), 'not-a-uuid']) {
      await expectError(other.client.get(`/api/youtube/videos/list?group=${id}`), 404, 'Group not found.')
      await expectError(patch(other.client, `/api/youtube/groups/${id}`, { name: 'Mine' }), 404, 'Group not found.')
      await expectError(other.client.delete(`/api/youtube/groups/${id}`), 404, 'Group not found.')
    }
    expect(await (await other.client.get('/api/youtube/groups')).json()).toEqual({ groups: [] })
    // still the owner's, unchanged
    expect((await (await user.client.get('/api/youtube/groups')).json()).groups.find((g: { id: string }) => g.id === groupId).name).toBe('Games')
  })

  test('bad input: 422 naming the field', async () => {
    const retro = t.fake.channel('@retro-motors')
    expect(await expectError(user.client.post('/api/youtube/groups', { name: 'X', channelIds: [retro.id] }), 422)).toContain('channelIds')
    expect(await expectError(patch(user.client, `/api/youtube/groups/${groupId}`, { channelIds: ['UCnothing'] }), 422)).toContain('channelIds')
    expect(await expectError(user.client.post('/api/youtube/groups', { name: 'X' }), 422)).toContain('channelIds')
    expect(await expectError(user.client.post('/api/youtube/groups', { name: '', channelIds: [] }), 422)).toContain('name')
    expect(await expectError(user.client.post('/api/youtube/groups', { name: 'x'.repeat(101), channelIds: [] }), 422)).toContain('name')
    expect(await expectError(user.client.post('/api/youtube/groups', { channelIds: [] }), 422)).toContain('name')
  })

  test('an unfollowed channel leaves the group listing and the feed', async () => {
    const g = (await (await user.client.post('/api/youtube/groups', { name: 'Kitchen', channelIds: [ids['@tiny-kitchen']] })).json()) as { id: string }
    expect((await user.client.delete(`/api/youtube/subscriptions/user?channel_id=${ids['@tiny-kitchen']}`)).status).toBe(200)
    await expectList(user.client, `group=${g.id}`, [])
    expect((await (await user.client.get('/api/youtube/groups')).json()).groups.find((x: { id: string }) => x.id === g.id).channelIds).toEqual([])
    expect((await user.client.put(`/api/youtube/subscriptions/user?channel_id=${ids['@tiny-kitchen']}`)).status).toBe(200)
  })
})

describe('muted words', () => {
  test('GET defaults to none; PUT stores as given; bad input is 422 naming mutedWords', async () => {
    expect(await (await other.client.get('/api/youtube/filters')).json()).toEqual({ mutedWords: [], hidden: [] })
    for (const body of [{}, { mutedWords: [''] }, { mutedWords: ['x'.repeat(51)] }, { mutedWords: Array.from({ length: 101 }, (_, i) => `w${i}`) }, { mutedWords: ['!!!'] }, { mutedWords: 'cats' }]) {
      expect(await expectError(other.client.put('/api/youtube/filters', body), 422)).toContain('mutedWords')
    }
  })

  test('the feed leaves out whole-word matches, any case; counts per word; not the channel list, likes or queue', async () => {
    const all = await everything(user.client, '')
    const titleWords = (v: VideoJson) => wordsOf(v.title)
    const res = await user.client.put('/api/youtube/filters', { mutedWords: ['SOURDOUGH', 'night skies', 'sour'] })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { mutedWords: string[]; hidden: { word: string; videos: number }[] }
    expect(body.mutedWords).toEqual(['SOURDOUGH', 'night skies', 'sour'])
    const hasSourdough = all.filter((v) => titleWords(v).includes('sourdough'))
    const hasNight = all.filter((v) => v.title.toLowerCase().includes('night skies'))
    expect(body.hidden).toEqual([
      { word: 'SOURDOUGH', videos: hasSourdough.length },
      { word: 'night skies', videos: hasNight.length },
      { word: 'sour', videos: 0 },
    ])
    expect(hasSourdough.length + hasNight.length).toBeGreaterThan(0)
    const kept = all.filter((v) => !titleWords(v).includes('sourdough') && !v.title.toLowerCase().includes('night skies'))
    await expectList(user.client, '', kept.map((v) => v.id))
    await expectList(user.client, 'hide_shorts=1', kept.filter((v) => v.kind !== 'short').map((v) => v.id))
    // a hidden video stays on its channel's page, in likes and in the queue
    const hidden = (hasSourdough[0] ?? hasNight[0])!
    expect((await everything(user.client, `channel_id=${hidden.channel.id}`)).some((v) => v.id === hidden.id)).toBe(true)
    expect((await user.client.put(`/api/youtube/videos/${hidden.id}/like`)).status).toBe(200)
    expect((await user.client.put(`/api/youtube/videos/${hidden.id}/queue`)).status).toBe(200)
    expect((await everything(user.client, 'liked_only=1')).map((v) => v.id)).toContain(hidden.id)
    expect((await everything(user.client, 'queued_only=1')).map((v) => v.id)).toContain(hidden.id)
    // with hide_watched: a video both watched and muted is taken off once
    const watchedMuted = hasSourdough.concat(hasNight).slice(0, 2)
    const watchedKept = kept.slice(0, 2)
    for (const v of [...watchedMuted, ...watchedKept]) expect((await user.client.put(`/api/youtube/videos/${v.id}/watch`)).status).toBe(200)
    const unwatched = kept.filter((v) => !v.watched && !watchedKept.some((w) => w.id === v.id))
    await expectList(user.client, 'hide_watched=1', unwatched.map((v) => v.id))
    // with a group and with q
    const groups = (await (await user.client.get('/api/youtube/groups')).json()).groups as { id: string; channelIds: string[] }[]
    const g = groups.find((x) => x.channelIds.length === 1 && x.channelIds[0] === ids['@star-lab'])!
    await expectList(user.client, `group=${g.id}`, kept.filter((v) => v.channel.id === ids['@star-lab']).map((v) => v.id))
    await expectList(user.client, 'q=sourdough', [])
    // another person's feed is untouched
    const theirs = await everything(other.client, '')
    expect(theirs.length).toBeGreaterThan(0)
  })

  test('new uploads and newly followed channels are muted too; clearing the words brings everything back', async () => {
    const star = t.fake.channel('@star-lab')
    const [fresh, plain] = t.fake.addUploads(star.id, 2)
    fresh!.title = 'Crème brûlée and SOURDOUGH, at last'
    plain!.title = 'Sourdoughs are not muted'
    await enqueueChannelRefresh(t.ctx, star.id)
    await t.jobs.drain()
    const feed = (await everything(user.client, '')).map((v) => v.id)
    expect(feed).toContain(plain!.id)
    expect(feed).not.toContain(fresh!.id)
    // follow a channel whose stored videos carry a muted word
    const retro = (await everything(other.client, '')).filter((v) => wordsOf(v.title).includes('sourdough'))
    expect((await user.client.put('/api/youtube/subscriptions/user?channel_id=@retro-motors')).status).toBe(200)
    await t.jobs.drain()
    const after = (await everything(user.client, '')).map((v) => v.id)
    for (const v of retro) expect(after).not.toContain(v.id)
    const res = await user.client.put('/api/youtube/filters', { mutedWords: [] })
    expect(await res.json()).toEqual({ mutedWords: [], hidden: [] })
    const back = (await list(user.client, 'per_page=1')).totalPages
    expect(back).toBeGreaterThan(after.length)
    expect((await everything(user.client, '')).map((v) => v.id)).toContain(fresh!.id)
  })
})
