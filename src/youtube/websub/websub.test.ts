import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import { startWebsubHub, type WebsubHub } from '../../../tests/support/websub-hub.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { refreshAllChannels } from '../jobs.ts'
import { youtubeChannels } from '../tables.ts'
import { topicUrl } from './hub.ts'
import { isPublicUrl, websubEnabled } from './public-url.ts'
import { sign } from './signature.ts'
import { renewalDue, syncWebsub } from './sync.ts'
import { websubStatus } from './status.ts'
import { youtubeWebsub } from './tables.ts'

let fake: FakeYoutube
let hub: WebsubHub
const open: { t: YoutubeTestApp; server: ReturnType<typeof Bun.serve> }[] = []
beforeAll(async () => {
  fake = await startTestFake()
  hub = startWebsubHub()
  // pays for the database snapshot once, outside any test's time limit
  await (await createYoutubeTestApp(fake)).close()
}, 60_000)
afterAll(async () => {
  await hub.stop()
  await fake.stop()
})
afterEach(async () => {
  await hub.settled()
  for (const { t, server } of open.splice(0)) {
    await server.stop(true)
    await t.close()
  }
  hub.requests.length = 0
  hub.subscriptions.clear()
  hub.verifies = true
  hub.grantLeaseSeconds = null
  fake.reset()
})

/** A test app served on 127.0.0.1 whose PUBLIC_URL is its own address, subscribing at the hub stand-in. */
async function app() {
  let handler: (req: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 })
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => handler(req) })
  const t = await createYoutubeTestApp(fake, {
    PUBLIC_URL: `http://127.0.0.1:${server.port}`,
    WEBSUB_HUB_URL: hub.url,
    WEBSUB_ALLOW_PRIVATE_CALLBACK: 'true',
    FETCH_ALLOW_HOSTS: '127.0.0.1',
  })
  handler = (req) => t.app.fetch(req)
  open.push({ t, server })
  return t
}

/** A user follows the channel, its first fill runs, and the app subscribes at the hub (verified). */
async function subscribed(t: YoutubeTestApp, handle = '@tiny-kitchen') {
  const user = await quickUser(t)
  const res = await user.client.put(`/api/youtube/subscriptions/user?channel_id=${encodeURIComponent(handle)}`)
  expect(res.status).toBe(200)
  const channel = (await res.json()) as { id: string }
  await t.jobs.drain()
  expect((await syncWebsub(t.ctx)).subscribed).toBe(1)
  await hub.settled()
  const [row] = await t.ctx.db.select().from(youtubeWebsub).where(eq(youtubeWebsub.channelId, channel.id))
  return { user, channel, row: row!, topic: topicUrl(t.ctx.env, channel.id) }
}

const feedIds = async (client: Awaited<ReturnType<typeof quickUser>>['client']) =>
  ((await (await client.get('/api/youtube/videos/list?per_page=100')).json()) as { videos: { id: string }[] }).videos.map((v) => v.id)

describe('is PUBLIC_URL public', () => {
  const resolver = (answers: Record<string, string[]>) => async (host: string) => {
    if (!answers[host]) throw new Error('ENOTFOUND')
    return answers[host]
  }
  const dns = resolver({
    'music.example.org': ['93.184.216.34'],
    'home.example.org': ['192.168.1.20'],
    'split.example.org': ['10.0.0.5', '2606:4700::1111'],
    'inside.example.org': ['127.0.0.1', 'fe80::1'],
  })
  test.each([
    ['https://music.example.org', true],
    ['https://93.184.216.34:8443/tunefeed', true],
    ['https://[2606:4700::1111]', true],
    ['https://split.example.org', true],
    ['http://localhost:8000', false],
    ['http://app.localhost', false],
    ['http://127.0.0.1:8000', false],
    ['http://[::1]:8000', false],
    ['http://10.1.2.3', false],
    ['http://172.20.0.4', false],
    ['http://192.168.0.10', false],
    ['http://169.254.1.1', false],
    ['http://[fe80::1]', false],
    ['http://[fd00::5]', false],
    ['http://[::ffff:127.0.0.1]', false],
    ['https://home.example.org', false],
    ['https://inside.example.org', false],
    ['https://unknown.example.org', false],
    ['ftp://music.example.org', false],
    [undefined, false],
  ] as const)('%s → %p', async (url, expected) => {
    expect(await isPublicUrl(url, dns)).toBe(expected)
  })

  test('the test-only setting lets a loopback PUBLIC_URL subscribe; without PUBLIC_URL nothing does', async () => {
    expect(await websubEnabled({ PUBLIC_URL: 'http://127.0.0.1:8000', WEBSUB_ALLOW_PRIVATE_CALLBACK: false }, dns)).toBe(false)
    expect(await websubEnabled({ PUBLIC_URL: 'http://127.0.0.1:8000', WEBSUB_ALLOW_PRIVATE_CALLBACK: true }, dns)).toBe(true)
    expect(await websubEnabled({ PUBLIC_URL: undefined, WEBSUB_ALLOW_PRIVATE_CALLBACK: true }, dns)).toBe(false)
    expect(await websubEnabled({ PUBLIC_URL: 'https://music.example.org', WEBSUB_ALLOW_PRIVATE_CALLBACK: false }, dns)).toBe(true)
  })

  test('renewal is due once 80 % of the lease has passed, whatever its length', () => {
    const verifiedAt = new Date('2026-12-01T00:00:00Z')
    for (const seconds of [600, 86_400, 432_000]) {
      const row = { verifiedAt, leaseExpiresAt: new Date(verifiedAt.getTime() + seconds * 1000) }
      expect(renewalDue(row, verifiedAt.getTime() + seconds * 790)).toBe(false)
      expect(renewalDue(row, verifiedAt.getTime() + seconds * 800)).toBe(true)
    }
  })
})

describe('WebSub against a hub on 127.0.0.1', () => {
  test('a loopback PUBLIC_URL without the test setting subscribes nothing', async () => {
    const t = await createYoutubeTestApp(fake, { PUBLIC_URL: 'http://127.0.0.1:9', WEBSUB_HUB_URL: hub.url, FETCH_ALLOW_HOSTS: '127.0.0.1' })
    open.push({ t, server: Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(null) }) })
    const user = await quickUser(t)
    expect((await user.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
    await t.jobs.drain()
    expect(await syncWebsub(t.ctx)).toEqual({ subscribed: 0, renewed: 0, unsubscribed: 0 })
    expect(hub.requests).toEqual([])
    expect(await websubStatus(t.ctx)).toMatchObject({ enabled: false, subscribed: 0 })
  })

  test('subscribe: topic, callback with a token, a secret per subscription, a lease; the hub verifies', async () => {
    const t = await app()
    const { row, topic, channel } = await subscribed(t)
    const [request] = hub.requests
    expect(request).toMatchObject({ mode: 'subscribe', topic, callback: `${t.ctx.env.PUBLIC_URL}/websub/${row.token}`, secret: row.secret })
    expect(topic).toBe(`${fake.url}/feeds/videos.xml?channel_id=${channel.id}`)
    expect(request!.leaseSeconds).toBeGreaterThan(0)
    expect(request!.verified).toEqual({ status: 200, echoed: true })
    expect(row.state).toBe('active')
    expect(row.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + (request!.leaseSeconds! - 60) * 1000)
    expect(row.token.length).toBeGreaterThanOrEqual(32)
    expect(row.secret.length).toBeGreaterThanOrEqual(32)
    expect(row.secret).not.toBe(row.token)
    // a second pass asks nothing more: the lease is fresh
    expect(await syncWebsub(t.ctx)).toEqual({ subscribed: 0, renewed: 0, unsubscribed: 0 })
    expect(hub.requests.length).toBe(1)
    expect(await websubStatus(t.ctx)).toEqual({ enabled: true, hub: hub.url, subscribed: 1, lastPushAt: null, lastError: null })
  })

  test('verification echoes only what the app asked for: another topic, mode or token is 404', async () => {
    const t = await app()
    const { row, topic } = await subscribed(t)
    const callback = `${t.ctx.env.PUBLIC_URL}/websub/${row.token}`
    expect((await hub.verify(callback, 'subscribe', `${fake.url}/feeds/videos.xml?channel_id=UC00000000000000000000zz`, 3600)).status).toBe(404)
    expect((await hub.verify(callback, 'unsubscribe', topic)).status).toBe(404)
    expect((await hub.verify(`${t.ctx.env.PUBLIC_URL}/websub/not-a-token`, 'subscribe', topic, 3600)).status).toBe(404)
    const ok = await hub.verify(callback, 'subscribe', topic, 7200)
    expect(ok).toMatchObject({ status: 200, body: ok.challenge })
    const [renewed] = await t.ctx.db.select().from(youtubeWebsub).where(eq(youtubeWebsub.token, row.token))
    expect(renewed!.leaseSeconds).toBe(7200)
  })

  test('a forged notification (missing or wrong signature) is answered 2xx and changes nothing', async () => {
    const t = await app()
    const { channel, topic } = await subscribed(t)
    fake.addUploads(channel.id, 1)
    const body = '<feed><entry><yt:videoId>forged</yt:videoId></entry></feed>'
    for (const signature of [null, 'sha256=00', `sha256=${'ab'.repeat(32)}`, 'md5=abc', 'sha1', '']) {
      for (const status of await hub.publish(topic, body, { signature })) expect(status).toBe(202)
    }
    expect(t.jobs.waiting).toEqual([])
    const [row] = await t.ctx.db.select().from(youtubeWebsub).where(eq(youtubeWebsub.channelId, channel.id))
    expect(row!.lastPushAt).toBeNull()
  })

  test('a valid push refreshes the channel and the new video is in the follower\'s feed within a minute', async () => {
    const t = await app()
    const { user, channel, topic } = await subscribed(t)
    const [video] = fake.addUploads(channel.id, 1)
    expect(await feedIds(user.client)).not.toContain(video!.id)
    const started = performance.now()
    for (const algorithm of ['sha1', 'sha512'] as const) {
      expect(await hub.publish(topic, `<feed><entry><yt:videoId>${video!.id}</yt:videoId></entry></feed>`, { algorithm })).toEqual([202])
    }
    expect(t.jobs.waiting.map((j) => [j.def.name, j.payload])).toEqual([['youtube.refreshChannel', { channelId: channel.id }]])
    await t.jobs.drain()
    expect(await feedIds(user.client)).toContain(video!.id)
    expect(performance.now() - started).toBeLessThan(60_000)
    const status = await websubStatus(t.ctx)
    expect(status.lastPushAt).not.toBeNull()
  })

  test('an oversized notification (even signed) is refused with 413 before it is read, and changes nothing', async () => {
    const t = await app()
    const { row } = await subscribed(t)
    const body = `<feed>${'x'.repeat(70 * 1024)}</feed>`
    const res = await fetch(`${t.ctx.env.PUBLIC_URL}/websub/${row.token}`, { method: 'POST', body, headers: { 'x-hub-signature': sign('sha256', body, row.secret) } })
    expect(res.status).toBe(413)
    expect(t.jobs.waiting).toEqual([])
  })

  test('a flood of 50 valid pushes costs one feed read', async () => {
    const t = await app()
    const { user, channel, topic } = await subscribed(t)
    const [video] = fake.addUploads(channel.id, 1)
    const reads = fake.feedRequests
    const statuses = await Promise.all(Array.from({ length: 50 }, () => hub.publish(topic, '<feed/>')))
    expect(statuses.flat().every((s) => s === 202)).toBe(true)
    expect(t.jobs.waiting.length).toBe(1)
    await t.jobs.drain()
    // more within the minute, after the refresh ran: still nothing queued
    await Promise.all(Array.from({ length: 10 }, () => hub.publish(topic, '<feed/>')))
    expect(t.jobs.waiting.length).toBe(0)
    expect(fake.feedRequests - reads).toBe(1)
    expect(await feedIds(user.client)).toContain(video!.id)
  })

  test('the hourly pass skips a channel the hub pushes for once refreshed within 6 hours', async () => {
    const t = await app()
    const { channel } = await subscribed(t)
    const other = await quickUser(t)
    expect((await other.client.put('/api/youtube/subscriptions/user?channel_id=@lofi-garden')).status).toBe(200)
    await t.jobs.drain()
    const { queued } = await refreshAllChannels(t.ctx, {})
    expect(queued).not.toContain(`youtube.refreshChannel.${channel.id}`)
    expect(queued.length).toBe(1)
    await t.jobs.drain()
    // refreshed 7 hours ago: polled again as the fallback
    await t.ctx.db.update(youtubeChannels).set({ refreshedAt: sql`now() - interval '7 hours'` }).where(eq(youtubeChannels.id, channel.id))
    expect((await refreshAllChannels(t.ctx, {})).queued).toContain(`youtube.refreshChannel.${channel.id}`)
  })

  test('unsubscribes once the last follower goes, and pushes after that change nothing', async () => {
    const t = await app()
    const { user, channel, topic, row } = await subscribed(t)
    const second = await quickUser(t)
    expect((await second.client.put(`/api/youtube/subscriptions/user?channel_id=${channel.id}`)).status).toBe(200)
    await t.jobs.drain()
    expect((await user.client.delete(`/api/youtube/subscriptions/user?channel_id=${channel.id}`)).status).toBe(200)
    // one follower left: still subscribed
    expect((await syncWebsub(t.ctx)).unsubscribed).toBe(0)
    expect((await second.client.delete(`/api/youtube/subscriptions/user?channel_id=${channel.id}`)).status).toBe(200)
    expect((await syncWebsub(t.ctx)).unsubscribed).toBe(1)
    await hub.settled()
    expect(hub.requests.at(-1)).toMatchObject({ mode: 'unsubscribe', topic, callback: `${t.ctx.env.PUBLIC_URL}/websub/${row.token}`, verified: { status: 200, echoed: true } })
    expect(hub.subscriptions.size).toBe(0)
    expect(await t.ctx.db.select().from(youtubeWebsub)).toEqual([])
    expect((await hub.verify(`${t.ctx.env.PUBLIC_URL}/websub/${row.token}`, 'subscribe', topic, 3600)).status).toBe(404)
    expect(await websubStatus(t.ctx)).toMatchObject({ subscribed: 0 })
    // a delivery to the old callback: the subscription is gone
    const late = await fetch(`${t.ctx.env.PUBLIC_URL}/websub/${row.token}`, { method: 'POST', body: '<feed/>', headers: { 'x-hub-signature': 'sha256=00' } })
    expect(late.status).toBe(404)
    expect(t.jobs.waiting).toEqual([])
  })

  test('a hub that never verifies: asked again after 10 minutes, never counted as subscribed', async () => {
    const t = await app()
    hub.verifies = false
    const user = await quickUser(t)
    const res = await user.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')
    const channel = (await res.json()) as { id: string }
    await t.jobs.drain()
    expect((await syncWebsub(t.ctx)).subscribed).toBe(1)
    expect((await syncWebsub(t.ctx)).subscribed).toBe(0)
    expect((await syncWebsub(t.ctx, Date.now() + 11 * 60_000)).subscribed).toBe(1)
    expect(hub.requests.length).toBe(2)
    const [row] = await t.ctx.db.select().from(youtubeWebsub).where(eq(youtubeWebsub.channelId, channel.id))
    expect(row!.state).toBe('subscribing')
    expect(await websubStatus(t.ctx)).toMatchObject({ enabled: true, subscribed: 0 })
  })
})
