import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { Client, signUp, startTestAppBeside, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { makeTone, testMedia, type TestMedia } from '../../tests/support/media.ts'
import { musicForm, postForm, startMusicTestApp, toolProcesses, userIdOf, waitForJob } from '../../tests/support/music.ts'
import { scanFor } from '../../tests/support/scan.ts'
import { startWebdavServer, type TestWebdav } from '../../tests/support/webdav.ts'
import {
  youtubeChannels,
  youtubePlaybackProgress,
  youtubeSubscriptions,
  youtubeUserChannels,
  youtubeVideos,
} from '../youtube/tables.ts'
import { addMark } from '../youtube/queries/marks.ts'
import { users } from './tables.ts'

// Password change and account deletion, against a real queue, ffmpeg and WebDAV server.
setDefaultTimeout(60_000)

let t: TestApp
let files: TestMedia
let dav: TestWebdav

beforeAll(async () => {
  files = await testMedia()
  // no SMTP: mails are saved under DATA_DIR/mail, which the deletion scan covers
  ;({ server: dav } = t = await startTestAppBeside(await startWebdavServer()))
}, 60_000)
afterAll(() => t?.close())

/** Another signed-in client of the same account. */
async function secondSession(email: string, password: string) {
  const c = new Client(t)
  expect((await c.post('/api/auth/login', { email, password })).status).toBe(200)
  return c
}

describe('PUT /api/auth/password', () => {
  test('400 Incorrect password. for a wrong current password; nothing changes', async () => {
    const { client, email, password } = await signUp(t)
    await expectError(client.put('/api/auth/password', { currentPassword: 'wrong password', password: 'brand new pass' }), 400, 'Incorrect password.')
    expect((await secondSession(email, password)).cookie).not.toBe('')
  })

  test('204: this session stays, the others are revoked, only the new password signs in', async () => {
    const { client, email, password } = await signUp(t)
    const other = await secondSession(email, password)
    const { token } = (await (await client.post('/api/auth/tokens', { name: 'script' })).json()) as { token: string }
    expect((await client.put('/api/auth/password', { currentPassword: password, password: 'brand new pass' })).status).toBe(204)
    expect((await client.get('/api/auth/session')).status).toBe(200)
    await expectError(other.get('/api/auth/session'), 401, 'Unauthorized')
    await expectError(new Client(t).post('/api/auth/login', { email, password }), 401, 'Incorrect email or password.')
    expect((await new Client(t).post('/api/auth/login', { email, password: 'brand new pass' })).status).toBe(200)
    // API tokens are revoked too, unless the change keeps them (src/auth/tokens-trust.test.ts)
    expect((await t.app.request('/api/auth/session', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401)
  })

  test('401 without a session, 422 naming the field', async () => {
    await expectError(new Client(t).put('/api/auth/password', { currentPassword: 'x', password: 'yyyyyyyy' }), 401, 'Unauthorized')
    const { client, password } = await signUp(t)
    expect(await expectError(client.put('/api/auth/password', { currentPassword: password, password: 'short' }), 422)).toContain('password')
    expect(await expectError(client.put('/api/auth/password', { password: 'long enough' }), 422)).toContain('currentPassword')
  })
})

describe('DELETE /api/auth/account', () => {
  test('400 Incorrect password. keeps everything', async () => {
    const { client } = await signUp(t)
    await expectError(client.request('/api/auth/account', { method: 'DELETE', json: { password: 'not mine at all' } }), 400, 'Incorrect password.')
    expect((await client.get('/api/auth/session')).status).toBe(200)
    await expectError(new Client(t).request('/api/auth/account', { method: 'DELETE', json: { password: 'x' } }), 401, 'Unauthorized')
  })

  test("204: nothing of the user remains in the database or DATA_DIR; the other user's data stays", async () => {
    const alice = await signUp(t)
    const bob = await signUp(t)
    const aliceId = await userIdOf(t, alice.client)
    const bobId = await userIdOf(t, bob.client)
    const other = await secondSession(alice.email, alice.password)
    for (const who of [alice, bob]) {
      // a finished job with its files, a WebDAV account, an API token
      const res = await postForm(who.client, '/api/music/jobs/create', musicForm({ title: 'Mine', artist: who.email, album: 'A' }, { path: files.wav }))
      await waitForJob(who.client, ((await res.json()) as { id: string }).id)
      expect((await who.client.post('/api/webdav', { url: dav.url, username: dav.username, password: dav.password })).status).toBe(200)
      expect((await who.client.post('/api/auth/tokens', { name: 'phone' })).status).toBe(201)
    }
    const { token } = (await (await alice.client.post('/api/auth/tokens', { name: 'laptop' })).json()) as { token: string }
    // subscriptions and marks (the video area's rows, written directly: this test is about their removal)
    const db = t.ctx.db
    await db.insert(youtubeChannels).values({ id: 'UCaccountdeletion00000001', title: 'Channel' }).onConflictDoNothing()
    await db
      .insert(youtubeVideos)
      .values({ id: 'accountdel1', channelId: 'UCaccountdeletion00000001', title: 'V', publishedAt: new Date(), categoryId: 10 })
      .onConflictDoNothing()
    for (const userId of [aliceId, bobId]) {
      await db.insert(youtubeUserChannels).values({ userId, channelId: 'UCaccountdeletion00000001' })
      await db.insert(youtubeSubscriptions).values({ userId, channelId: 'UCaccountdeletion00000001', source: 'manual' })
      for (const mark of ['like', 'queue', 'watch'] as const) await addMark(db, mark, userId, 'accountdel1')
      await db.insert(youtubePlaybackProgress).values({ userId, videoId: 'accountdel1', playedSeconds: 3, duration: 10 })
    }
    const dataDir = t.ctx.env.DATA_DIR
    const before = await scanFor(db, dataDir, [aliceId, alice.email])
    expect(before.rows.length).toBeGreaterThan(10)
    expect(before.files.length).toBeGreaterThan(2)
    const bobsBefore = await scanFor(db, dataDir, [bobId, bob.email])

    const res = await alice.client.request('/api/auth/account', { method: 'DELETE', json: { password: alice.password } })
    expect(res.status).toBe(204)
    expect(res.headers.get('set-cookie')).toMatch(/tunefeed_session=;/)

    expect(await scanFor(db, dataDir, [aliceId, alice.email])).toEqual({ rows: [], files: [] })
    await expectError(other.get('/api/auth/session'), 401, 'Unauthorized')
    await expectError(t.app.request('/api/auth/session', { headers: { authorization: `Bearer ${token}` } }), 401, 'Unauthorized')
    await expectError(new Client(t).post('/api/auth/login', { email: alice.email, password: alice.password }), 401, 'Incorrect email or password.')
    // bob is untouched: the same scan still finds all of his
    expect(await scanFor(db, dataDir, [bobId, bob.email])).toEqual(bobsBefore)
    expect((await bob.client.get('/api/webdav')).status).toBe(200)
    // the address is free again
    expect((await new Client(t).post('/api/auth/create', { email: alice.email, password: 'a new start' })).status).toBe(204)
    expect(await db.select().from(users).where(eq(users.email, alice.email))).toHaveLength(1)
  })
})

describe('DELETE /api/auth/account while a job runs', () => {
  test('the job is stopped, its yt-dlp killed, and nothing of the user is left behind', async () => {
    const m = await startMusicTestApp()
    try {
      // a 10 s source served at 8 KB/s: the job is still downloading when the account goes
      const long = join(m.ctx.env.DATA_DIR, 'long.mp3')
      await makeTone(long, 10)
      m.media.addFile('long.mp3', long)
      m.media.slowRate = 8 * 1024
      const userId = await userIdOf(m, m.alice)
      const { email } = (await (await m.alice.get('/api/auth/session')).json()) as { email: string }
      const res = await postForm(m.alice, '/api/music/jobs/create', musicForm({ video_url: m.media.slowUrl('long.mp3'), title: 'Slow', artist: 'A', album: 'B' }))
      expect(res.status).toBe(201)
      const until = Date.now() + 10_000
      while (toolProcesses(m.ctx.env.DATA_DIR).length === 0) {
        if (Date.now() > until) throw new Error('yt-dlp never started')
        await Bun.sleep(20)
      }
      const deleted = await m.alice.request('/api/auth/account', { method: 'DELETE', json: { password: 'correct horse' } })
      expect(deleted.status).toBe(204)
      expect(toolProcesses(m.ctx.env.DATA_DIR)).toEqual([])
      await Bun.sleep(300)
      expect(await scanFor(m.ctx.db, m.ctx.env.DATA_DIR, [userId, email])).toEqual({ rows: [], files: [] })
    } finally {
      await m.close()
    }
  })
})
