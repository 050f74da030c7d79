import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../app.ts'
import { setAdmin } from '../auth/queries.ts'
import { Client, createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { musicForm, postForm } from '../../tests/support/music.ts'

// NUL and other control characters never reach the database (PostgreSQL
// refuses NUL in text: that was a 500): every text input, path parameters
// included, is refused with 422 naming the field; static paths answer 404.
setDefaultTimeout(30_000)

let t: TestApp
let alice: Client
beforeAll(async () => {
  t = await createTestApp()
  ;({ client: alice } = await signUp(t))
}, 60_000)
afterAll(() => t?.close())

const NAMED = /^id: Must not contain control characters$/

describe('path parameters', () => {
  test.each([
    ['GET', '/api/youtube/channels/%00'],
    ['GET', '/api/youtube/channels/UC%01x'],
    ['GET', '/api/youtube/videos/%00'],
    ['GET', '/api/youtube/videos/%00/progress'],
    ['PUT', '/api/youtube/videos/%00/like'],
    ['DELETE', '/api/youtube/videos/a%7Fb/queue'],
    ['GET', '/api/music/jobs/%00/download'],
    ['DELETE', '/api/music/jobs/%00/delete'],
  ])('%s %s → 422 naming id', async (method, path) => {
    await expectError(alice.request(path, { method }), 422, NAMED)
  })
})

describe('query and body text', () => {
  test('channel_id in a query', async () => {
    await expectError(alice.request('/api/youtube/subscriptions/user?channel_id=%00', { method: 'PUT' }), 422, /^channel_id: /)
    await expectError(alice.get('/api/youtube/videos/list?channel_id=UC%00'), 422, /^channel_id: /)
  })

  test('search text in a query: q of the video list, the admin user list, the MusicBrainz search', async () => {
    await expectError(alice.get('/api/youtube/videos/list?q=%00'), 422, /^q: Must not contain control characters/)
    await expectError(alice.get('/api/youtube/videos/list?q=a%1Fb'), 422, /^q: Must not contain control characters/)
    await expectError(alice.get('/api/youtube/videos/list?video_categories=%00'), 422, /^video_categories: /)
    expect((await alice.get('/api/youtube/videos/list?q=Caf%C3%A9')).status).toBe(200)
    await expectError(alice.get('/api/music/musicbrainz?title=%00'), 422, /^title: Must not contain control characters/)
    await expectError(alice.get('/api/music/musicbrainz?title=x&artist=a%7F'), 422, /^artist: Must not contain control characters/)
    const { client: admin, email } = await signUp(t)
    await setAdmin(t.ctx.db, email, true)
    await expectError(admin.get('/api/admin/users?q=%00'), 422, /^q: Must not contain control characters/)
  })

  test('channel_id in a JSON body', async () => {
    await expectError(alice.post('/api/youtube/channels/user', { channel_id: '@a\u0000b' }), 422, /^channel_id: Must not contain control characters/)
  })

  test('music text fields', async () => {
    for (const field of ['title', 'artist', 'album', 'grouping']) {
      const fields: Record<string, string> = { title: 'T', artist: 'A', album: 'B', [field]: `x\u0000y` }
      const res = postForm(alice, '/api/music/jobs/create', musicForm(fields, { path: import.meta.path, name: 'a.mp3' }))
      await expectError(res, 422, new RegExp(`^${field}: Must not contain control characters`))
    }
    await expectError(alice.get('/api/music/grouping?video_url=http://example.com/%00'), 422, /^video_url: /)
  })

  test('ordinary text still passes validation', async () => {
    const res = postForm(alice, '/api/music/jobs/create', musicForm({ title: 'Café — Ñandú', artist: 'A', album: 'B' }, { path: import.meta.path, name: 'a.mp3' }))
    // the text passes; the answer is about the (non-audio) file
    await expectError(res, 422, 'File is incorrect format.')
  })
})

describe('static files', () => {
  let root: string
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'tunefeed-web-'))
    mkdirSync(join(root, 'assets'))
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>Tunefeed</title>')
    writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)')
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  test.each(['/%00', '/assets/%00', '/assets/app.js%00', '/a%00b/c'])('%s → 404', async (path) => {
    const app = createApp(t.ctx, { webRoot: root })
    const res = await app.request(path)
    expect(res.status).toBe(404)
  })

  test('ordinary paths still serve the app', async () => {
    const app = createApp(t.ctx, { webRoot: root })
    expect((await app.request('/assets/app.js')).status).toBe(200)
    expect(await (await app.request('/some/page')).text()).toContain('Tunefeed')
  })
})
