import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createTestApp, signUp, type Client, type TestApp } from '../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { expectError } from '../../tests/support/http.ts'
import { testMedia } from '../../tests/support/media.ts'
import { listJobs, musicForm, postForm } from '../../tests/support/music.ts'
import { setAdmin } from '../auth/queries.ts'
import { isPrivateListInfo, opensPrivateList } from './private-lists.ts'

// Issue 25, finding 1: the admin's cookies go with every yt-dlp call, so a link to the cookies
// account's own lists (Watch later, liked, history, feeds) is refused for anyone but an admin,
// before yt-dlp runs. A stand-in site on 127.0.0.1 logs the Cookie header of every request; the
// stand-in yt-dlp maps the YouTube links to it, so yt-dlp only ever talks to loopback.
setDefaultTimeout(60_000)

describe('which inputs open the cookies account’s private lists', () => {
  test.each([
    'https://www.youtube.com/playlist?list=WL',
    'https://www.youtube.com/playlist?list=LL',
    'https://youtube.com/playlist?list=LM',
    'https://music.youtube.com/playlist?list=LM',
    'https://m.youtube.com/playlist?list=wl',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=WL',
    'https://youtu.be/dQw4w9WgXcQ?list=LL',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=RDMM',
    'https://www.youtube.com/feed/history',
    'https://www.youtube.com/feed/subscriptions',
    'https://www.youtube.com/feed/library',
    'https://www.youtube.com/feed/liked',
    'https://www.youtube.com/feed/watch_later',
    'https://www.youtube.com/feed/notifications',
    'https://WWW.YOUTUBE.COM./feed/history',
    'https://www.youtube.com//feed/history',
    'https://www.youtube.com/%66eed/history',
    'https://m.youtube.com/feed/subscriptions',
    'https://music.youtube.com/library/playlists',
    'https://music.youtube.com/history',
    'https://www.youtube.com/',
    'https://music.youtube.com',
    ':ytfav',
    ':ytwatchlater',
    ':ythistory',
    ':ytsubs',
    ':ytrec',
    ':ytnotifications',
    ' :ytsomethingnew',
    // front-ends yt-dlp reads as YouTube (with YouTube's cookies)
    'https://yewtu.be/playlist?list=WL',
    'https://invidious.example/feed/history',
    'https://example.com/playlist?list=WL',
  ])('%s is refused', (input) => {
    expect(opensPrivateList(input)).toBe(true)
  })

  test.each([
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://www.youtube.com/playlist?list=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf',
    'https://youtu.be/dQw4w9WgXcQ',
    'https://music.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://www.youtube.com/@SomeChannel/videos',
    'https://example.com/feed/podcast.xml',
    'https://example.com/history',
    'https://soundcloud.com/artist/track',
  ])('%s is allowed', (input) => {
    expect(opensPrivateList(input)).toBe(false)
  })

  test('an answer that is such a list (reached through a redirect) is recognised', () => {
    expect(isPrivateListInfo({ _type: 'playlist', id: 'WL', webpage_url: 'https://www.youtube.com/playlist?list=WL' })).toBe(true)
    expect(isPrivateListInfo({ _type: 'playlist', id: 'x', webpage_url: 'https://www.youtube.com/feed/history' })).toBe(true)
    expect(isPrivateListInfo({ id: 'dQw4w9WgXcQ', webpage_url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' })).toBe(false)
  })
})

describe('shared cookies never open another person’s private lists', () => {
  let t: TestApp
  let fake: FakeYtdlp
  let site: ReturnType<typeof Bun.serve>
  const received: { path: string; cookie: string | null }[] = []
  let user: Client
  let admin: Client
  const WL = 'https://www.youtube.com/playlist?list=WL'
  const HISTORY = 'https://www.youtube.com/feed/history'
  const PUBLIC = 'https://www.youtube.com/watch?v=aaaaaaaaaaa'

  beforeAll(async () => {
    const media = await testMedia()
    site = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(req) {
        received.push({ path: new URL(req.url).pathname, cookie: req.headers.get('cookie') })
        return new Response(Bun.file(media.mp3), { headers: { 'content-type': 'audio/mpeg' } })
      },
    })
    const base = `http://127.0.0.1:${site.port}`
    fake = startFakeYtdlp({ urls: { [WL]: `${base}/watch-later.mp3`, [HISTORY]: `${base}/history.mp3`, [PUBLIC]: `${base}/public.mp3` } })
    t = await createTestApp({ env: { YTDLP_PATH: fake.path, FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com' } })
    ;({ client: user } = await signUp(t))
    const signedUp = await signUp(t)
    admin = signedUp.client
    await setAdmin(t.ctx.db, signedUp.email, true)
    const cookies = `# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tSID\tsecret-sid-of-the-cookies-account\n`
    const put = await admin.request('/api/admin/tools/cookies', { method: 'PUT', body: cookies, headers: { 'content-type': 'text/plain' } })
    expect(put.status).toBe(200)
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    await site?.stop(true)
    fake?.stop()
  })

  const q = (url: string) => encodeURIComponent(url)
  const REFUSED = /^video_url: This link opens a private list of the account whose cookies the server uses/

  test('a normal user: lookup, grouping and both kinds of create are refused (403) and the site receives nothing', async () => {
    for (const link of [WL, HISTORY, 'https://www.youtube.com/watch?v=aaaaaaaaaaa&list=LL']) {
      await expectError(user.get(`/api/music/lookup?video_url=${q(link)}`), 403, REFUSED)
      await expectError(user.get(`/api/music/grouping?video_url=${q(link)}`), 403, REFUSED)
      await expectError(postForm(user, '/api/music/jobs/create', musicForm({ video_url: link, title: 'T', artist: 'A', album: 'B' })), 403, REFUSED)
      await expectError(postForm(user, '/api/music/jobs/create', musicForm({ video_url: link, playlist: 'true' })), 403, REFUSED)
    }
    // a feed keyword is not even a link
    await expectError(user.get(`/api/music/lookup?video_url=${q(':ytwatchlater')}`), 422, /^video_url: /)
    expect(received).toEqual([])
    // (the runtime verdict, `-v` with no link, is not a call to the site)
    expect(fake.calls().filter((args) => !args.includes('--version') && args[0] !== '-v')).toEqual([])
    expect((await listJobs(user)).jobs).toEqual([])
  })

  test('a normal link still works, with the cookies', async () => {
    const res = await user.get(`/api/music/lookup?video_url=${q(PUBLIC)}`)
    expect(res.status).toBe(200)
    expect(received.map((r) => r.path)).toContain('/public.mp3')
    expect(received.every((r) => r.path === '/public.mp3')).toBe(true)
    expect(received[0]!.cookie).toContain('SID=secret-sid-of-the-cookies-account')
  })

  test('an admin may open the list; the answer is not kept for the others', async () => {
    expect((await admin.get(`/api/music/lookup?video_url=${q(WL)}`)).status).toBe(200)
    expect(received.some((r) => r.path === '/watch-later.mp3')).toBe(true)
    await expectError(user.get(`/api/music/lookup?video_url=${q(WL)}`), 403, REFUSED)
  })
})
