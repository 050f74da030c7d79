import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { resetYoutube, ledgerUnits, quickUser, startYoutubeTestApp, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import { syncAllSubscriptions } from './jobs.ts'
import { getUserChannel, userSubscriptionRows } from './queries/subscriptions.ts'
import { syncSubscriptions } from './sync.ts'

let fake: FakeYoutube
let t: YoutubeTestApp
beforeAll(async () => ({ fake } = t = await startYoutubeTestApp()), 60_000)
afterAll(() => t.close())
afterEach(() => resetYoutube(t))

/** A generated channel (not among the viewers' first subscriptions). */
const generated = (suffix: string) => [...fake.channels.values()].find((c) => c.handle.endsWith(suffix))!.id

async function active(userId: string): Promise<Record<string, string>> {
  const rows = await userSubscriptionRows(t.ctx.db, userId)
  return Object.fromEntries(rows.filter((r) => !r.deletedAt).map((r) => [r.channelId, r.source]))
}

async function withChannel(handle: string) {
  const user = await quickUser(t)
  expect((await user.client.post('/api/youtube/channels/user', { channel_id: handle })).status).toBe(200)
  t.jobs.waiting = []
  return user
}

describe('subscription sync', () => {
  test('adds new ones, removes synced ones that disappeared, never touches hand-added ones', async () => {
    const alice = fake.channel('@viewer-alice')
    const user = await withChannel('@viewer-alice')
    // hand-added before any sync: one Alice also follows on YouTube, one she does not
    const handOnly = generated('-20')
    const kitchen = fake.channel('@tiny-kitchen').id
    const [first, second, third] = alice.subscriptions!.filter((id) => id !== kitchen)
    expect(alice.subscriptions).toContain(kitchen)
    await user.client.put(`/api/youtube/subscriptions/user?channel_id=${kitchen}`)
    await user.client.put(`/api/youtube/subscriptions/user?channel_id=${handOnly}`)
    t.jobs.waiting = []

    const units = await ledgerUnits(t)
    const outcome = await syncSubscriptions(t.ctx, user.id)
    expect(outcome).toMatchObject({ status: 'done', removed: [] })
    if (outcome.status !== 'done') throw new Error()
    expect(outcome.added).toHaveLength(7)
    // one subscriptions page; details for the channels not stored yet in one channels.list
    expect((await ledgerUnits(t)) - units).toBe(2)
    const expected: Record<string, string> = Object.fromEntries(alice.subscriptions!.map((id) => [id, 'sync']))
    expect(await active(user.id)).toEqual({ ...expected, [kitchen]: 'manual', [handOnly]: 'manual' })
    expect((await getUserChannel(t.ctx.db, user.id))?.syncedAt).toBeInstanceOf(Date)

    // on YouTube: unfollows a synced one and the hand-added one, follows a new one
    const fresh = generated('-21')
    fake.unsubscribe(alice.id, first!)
    fake.unsubscribe(alice.id, kitchen)
    fake.subscribe(alice.id, fresh)
    // here: the user removes a synced one by hand
    expect((await user.client.delete(`/api/youtube/subscriptions/user?channel_id=${second}`)).status).toBe(200)

    const again = await syncSubscriptions(t.ctx, user.id)
    expect(again).toMatchObject({ status: 'done', added: [fresh], removed: [first] })
    const now = await active(user.id)
    expect(now[first!]).toBeUndefined()
    expect(now[second!]).toBeUndefined() // removed by the user stays removed
    expect(now[third!]).toBe('sync')
    expect(now[kitchen]).toBe('manual') // hand-added: kept though gone on YouTube
    expect(now[handOnly]).toBe('manual')
    expect(now[fresh]).toBe('sync')

    // following it again on YouTube brings back the one the sync removed
    fake.subscribe(alice.id, first!)
    expect(await syncSubscriptions(t.ctx, user.id)).toMatchObject({ added: [first], removed: [] })
    // a repeated sync changes nothing and costs one page
    const before = await ledgerUnits(t)
    expect(await syncSubscriptions(t.ctx, user.id)).toMatchObject({ status: 'done', added: [], removed: [] })
    expect((await ledgerUnits(t)) - before).toBe(1)
  })

  test('more than 50 subscriptions: pages through; the job queues a refresh per new channel', async () => {
    const user = await withChannel('@viewer-bob')
    const [result] = await syncAllSubscriptions(t.ctx, { userId: user.id })
    expect(result).toMatchObject({ status: 'done' })
    expect(Object.keys(await active(user.id))).toHaveLength(55)
    expect(t.jobs.waiting.filter((j) => j.def.name === 'youtube.refreshChannel').length).toBeGreaterThan(40)
    t.jobs.waiting = []
  })

  test('private subscriptions: the cause is kept, nothing changes', async () => {
    const user = await withChannel('@viewer-private')
    await user.client.put('/api/youtube/subscriptions/user?channel_id=@star-lab')
    const before = await active(user.id)
    expect(await syncSubscriptions(t.ctx, user.id)).toEqual({ status: 'failed', reason: 'The subscriptions of this channel are private.' })
    expect(await active(user.id)).toEqual(before)
    expect(await (await user.client.get('/api/youtube/channels/user')).json()).toMatchObject({
      syncError: 'The subscriptions of this channel are private.',
    })
  })

  test('quota exhausted during a sync: nothing written, a resume is scheduled', async () => {
    const user = await withChannel('@viewer-empty')
    fake.subscribe(fake.channel('@viewer-empty').id, fake.channel('@star-lab').id)
    fake.quota = fake.units
    const results = await syncAllSubscriptions(t.ctx, {})
    expect(results.at(-1)).toMatchObject({ status: 'quota' })
    expect(await active(user.id)).toEqual({})
    expect(t.jobs.delayed.map((j) => j.def.name)).toContain('youtube.syncSubscriptions')
    fake.reset()
  })

  test('no user channel: nothing to do', async () => {
    const user = await quickUser(t)
    expect(await syncSubscriptions(t.ctx, user.id)).toEqual({ status: 'no-channel' })
  })
})
