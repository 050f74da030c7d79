import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { startFakeYoutube, type FakeYoutube } from '../../scripts/fake-youtube.ts'
import type { Database } from '../db/client.ts'
import { createTestDatabase } from '../../tests/support/db.ts'
import { startTestFake } from '../../tests/support/youtube.ts'
import { YoutubeApiError, createYoutubeClient, parseDuration } from './client.ts'
import { parseFeed } from './public-pages.ts'
import { QuotaExhausted, quotaDay, quotaResetAt, quotaStatus } from './quota.ts'
import { youtubeQuotaDays } from './tables.ts'

let fake: FakeYoutube
let database: Database
beforeAll(async () => {
  fake = await startTestFake()
  database = await createTestDatabase()
})
afterAll(async () => {
  await fake.stop()
  await database.close()
})
beforeEach(async () => {
  await database.db.delete(youtubeQuotaDays)
  fake.reset()
})

const client = (opts: { budget?: number; apiUrl?: string; apiKey?: string } = {}) =>
  createYoutubeClient({
    apiUrl: opts.apiUrl ?? fake.apiUrl,
    feedUrl: fake.feedUrl,
    apiKey: opts.apiKey ?? fake.apiKey,
    db: database.db,
    budget: opts.budget ?? 10_000,
    retryBaseMs: 1,
  })

const units = async () => (await quotaStatus(database.db, 10_000)).units

describe('youtube client against the fake', () => {
  test('channels by handle and by id; unknown ones are simply absent', async () => {
    const c = client()
    const garden = await c.channelByHandle('@lofi-garden')
    expect(garden).toMatchObject({ title: 'Lofi Garden', handle: '@lofi-garden' })
    expect(garden!.id).toMatch(/^UC[\w-]{22}$/)
    expect(garden!.uploadsPlaylistId).toBe(`UU${garden!.id.slice(2)}`)
    expect(garden!.thumbnail).toStartWith(fake.url)
    expect(await c.channelByHandle('LOFI-GARDEN')).toMatchObject({ id: garden!.id })
    expect(await c.channelByHandle('@nobody-here')).toBeNull()
    const found = await c.channelsById([garden!.id, 'UCxxxxxxxxxxxxxxxxxxxxxx'])
    expect(found.map((f) => f.id)).toEqual([garden!.id])
    expect(await units()).toBe(4)
    expect(fake.units).toBe(4)
  })

  test('ids go 50 to a call', async () => {
    const ids = [...fake.channels.keys()].slice(0, 51)
    const found = await client().channelsById(ids)
    expect(found).toHaveLength(51)
    expect(fake.calls.channels).toBe(2)
    expect(await units()).toBe(2)
  })

  test('uploads playlist pages with tokens; a bad token is a 400', async () => {
    const garden = fake.channel('@lofi-garden')
    const c = client()
    const first = await c.playlistItems(`UU${garden.id.slice(2)}`)
    expect(first.items).toHaveLength(50)
    expect(first.items[0]!.videoId).toBe(garden.uploads[0]!)
    expect(first.nextPageToken).toBeString()
    const second = await c.playlistItems(`UU${garden.id.slice(2)}`, first.nextPageToken!)
    expect(second.items[0]!.videoId).toBe(garden.uploads[50]!)
    // newest first
    expect(first.items[0]!.publishedAt!.getTime()).toBeGreaterThan(first.items[49]!.publishedAt!.getTime())
    const err = await c.playlistItems(`UU${garden.id.slice(2)}`, 'nonsense').catch((e) => e)
    expect(err).toBeInstanceOf(YoutubeApiError)
    expect(err).toMatchObject({ status: 400, reason: 'invalidPageToken' })
    const missing = await c.playlistItems('UUxxxxxxxxxxxxxxxxxxxxxx').catch((e) => e)
    expect(missing).toMatchObject({ status: 404, reason: 'playlistNotFound' })
    expect(await units()).toBe(4)
  })

  test('videos in batches of 50 with category and duration', async () => {
    const garden = fake.channel('@lofi-garden')
    const videos = await client().videos(garden.uploads.slice(0, 120))
    expect(videos).toHaveLength(120)
    expect(fake.calls.videos).toBe(3)
    const v = videos[0]!
    const source = fake.videos.get(v.id)!
    expect(v).toMatchObject({ channelId: garden.id, title: source.title, categoryId: source.categoryId, duration: 30 })
    expect(v.publishedAt.toISOString()).toBe(source.publishedAt.toISOString())
  })

  test('public subscriptions page through; private ones are 403, unknown channels 404', async () => {
    const c = client()
    const bob = fake.channel('@viewer-bob')
    const first = await c.subscriptions(bob.id)
    expect(first.items).toHaveLength(50)
    const rest = await c.subscriptions(bob.id, first.nextPageToken!)
    expect(rest.items).toHaveLength(5)
    expect(rest.nextPageToken).toBeNull()
    expect(await c.subscriptions(fake.channel('@viewer-private').id).catch((e) => e)).toMatchObject({
      status: 403,
      reason: 'subscriptionForbidden',
    })
    expect(await c.subscriptions('UCxxxxxxxxxxxxxxxxxxxxxx').catch((e) => e)).toMatchObject({
      status: 404,
      reason: 'subscriberNotFound',
    })
  })

  test('categories from the spec table', async () => {
    const categories = await client().videoCategories()
    expect(categories.find((c) => c.id === 10)).toEqual({ id: 10, name: 'Music', assignable: true })
    expect(categories.find((c) => c.id === 40)?.name).toBe('Sci-Fi/Fantasy')
    expect(await units()).toBe(1)
  })

  test('5xx is retried with backoff; each answered attempt is counted like the API counts it', async () => {
    fake.failNext(2, 503)
    const found = await client().channelByHandle('@tiny-kitchen')
    expect(found?.title).toBe('Tiny Kitchen')
    expect(fake.calls.channels).toBe(3)
    expect(await units()).toBe(3)
    expect(fake.units).toBe(3)
    fake.failNext(10, 500)
    const err = await client().channelByHandle('@tiny-kitchen').catch((e) => e)
    expect(err).toMatchObject({ status: 500, reason: 'backendError' })
    expect(fake.calls.channels).toBe(3 + 4) // first try and 3 retries
  })

  test('network errors are retried and cost nothing', async () => {
    // a port nobody listens on (loopback only)
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
    const port = closed.port
    await closed.stop(true)
    const err = await client({ apiUrl: `http://127.0.0.1:${port}/youtube/v3` })
      .channelByHandle('@tiny-kitchen')
      .catch((e) => e)
    expect(err).toBeInstanceOf(Error)
    expect(err).not.toBeInstanceOf(YoutubeApiError)
    expect(await units()).toBe(0)
  })

  test('403 quotaExceeded stops the day with its cause, and no further call is sent', async () => {
    fake.quota = 2
    const c = client()
    await c.channelByHandle('@tiny-kitchen')
    await c.channelByHandle('@star-lab')
    const err = await c.channelByHandle('@pixel-arcade').catch((e) => e)
    expect(err).toBeInstanceOf(QuotaExhausted)
    expect(err.resetsAt.getTime()).toBe(quotaResetAt().getTime())
    const status = await quotaStatus(database.db, 10_000)
    expect(status).toMatchObject({ units: 2, exhausted: true, cause: 'YouTube answered quotaExceeded.' })
    const before = fake.calls.channels
    expect(await c.channelByHandle('@pixel-arcade').catch((e) => e)).toBeInstanceOf(QuotaExhausted)
    expect(fake.calls.channels).toBe(before)
  })

  test('our own daily budget stops before the API does', async () => {
    const c = client({ budget: 2 })
    await c.channelByHandle('@tiny-kitchen')
    await c.channelByHandle('@star-lab')
    const err = await c.channelByHandle('@pixel-arcade').catch((e) => e)
    expect(err).toBeInstanceOf(QuotaExhausted)
    expect(err.reason).toBe('Daily budget of 2 units reached.')
    expect(fake.calls.channels).toBe(2)
    expect(await units()).toBe(2)
  })

  test('an API key is sent; a wrong one is refused like the real API does', async () => {
    const keyed = await startFakeYoutube({ media: false, apiKey: 'secret-key' })
    try {
      expect(await client({ apiUrl: keyed.apiUrl, apiKey: 'secret-key' }).channelByHandle('@star-lab')).not.toBeNull()
      expect(await client({ apiUrl: keyed.apiUrl, apiKey: 'wrong' }).channelByHandle('@star-lab').catch((e) => e)).toMatchObject({
        status: 400,
        reason: 'keyInvalid',
      })
    } finally {
      await keyed.stop()
    }
  })

  test('the Atom feed lists the newest 15 uploads at no cost', async () => {
    const garden = fake.channel('@lofi-garden')
    const entries = await client().feed(garden.id)
    expect(entries.map((e) => e.videoId)).toEqual(garden.uploads.slice(0, 15))
    expect(await units()).toBe(0)
    expect(await client().feed('UCxxxxxxxxxxxxxxxxxxxxxx').catch((e) => e)).toBeInstanceOf(Error)
  })
})

describe('pure helpers', () => {
  test('ISO durations', () => {
    expect(parseDuration('PT30S')).toBe(30)
    expect(parseDuration('PT1H2M3S')).toBe(3723)
    expect(parseDuration('P1DT1S')).toBe(86401)
    expect(parseDuration('P0D')).toBe(0)
    expect(parseDuration('nonsense')).toBe(0)
  })

  test('feeds: entries, escapes, and refusal of what is not a feed', () => {
    const xml = `<feed><entry><yt:videoId>abcdefghijk</yt:videoId><title>a &amp; b</title><published>2026-01-01T00:00:00+00:00</published></entry>
<entry><yt:videoId>bcdefghijkl</yt:videoId><yt:channelId>UCaaaaaaaaaaaaaaaaaaaaaa</yt:channelId><title>short</title><link rel="alternate" href="https://www.youtube.com/shorts/bcdefghijkl"/><published>2026-01-02T00:00:00+00:00</published></entry></feed>`
    expect(parseFeed(xml)).toEqual([
      { videoId: 'abcdefghijk', publishedAt: new Date('2026-01-01T00:00:00Z'), channelId: '', title: 'a & b', description: '', thumbnail: '', short: false },
      { videoId: 'bcdefghijkl', publishedAt: new Date('2026-01-02T00:00:00Z'), channelId: 'UCaaaaaaaaaaaaaaaaaaaaaa', title: 'short', description: '', thumbnail: '', short: true },
    ])
    expect(() => parseFeed('<html>Not Found</html>')).toThrow()
  })

  test('the quota day is the Pacific date and resets at Pacific midnight, across daylight saving time', () => {
    expect(quotaDay(new Date('2026-01-15T07:59:00Z'))).toBe('2026-01-14')
    expect(quotaDay(new Date('2026-01-15T08:00:00Z'))).toBe('2026-01-15')
    expect(quotaResetAt(new Date('2026-01-15T12:00:00Z')).toISOString()).toBe('2026-01-16T08:00:00.000Z')
    expect(quotaResetAt(new Date('2026-07-15T12:00:00Z')).toISOString()).toBe('2026-07-16T07:00:00.000Z')
    // the night the clocks go forward (8 March 2026)
    expect(quotaResetAt(new Date('2026-03-07T20:00:00Z')).toISOString()).toBe('2026-03-08T08:00:00.000Z')
    expect(quotaResetAt(new Date('2026-03-08T20:00:00Z')).toISOString()).toBe('2026-03-09T07:00:00.000Z')
  })
})
