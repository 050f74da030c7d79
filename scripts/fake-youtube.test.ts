import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FakeYoutube, startFakeYoutube } from './fake-youtube.ts'
import { onFake, writeDemoYtdlp } from './fake-youtube/ytdlp.ts'

let fake: FakeYoutube
beforeAll(async () => {
  // media on: the clip is made once with ffmpeg and cached under the temp folder
  fake = await startFakeYoutube({ port: 0, now: new Date('2026-01-15T12:00:00Z') })
}, 60_000)
afterAll(() => fake.stop())

/** A request to the fake; API calls carry its key. */
const get = (path: string, init?: RequestInit) =>
  fetch(`${fake.url}${path}${path.startsWith('/youtube/v3/') ? `&key=${fake.apiKey}` : ''}`, init)

describe('fake YouTube', () => {
  test('deterministic: the same seed and anchor give the same data', () => {
    const again = new FakeYoutube({ now: new Date('2026-01-15T12:00:00Z'), media: false })
    expect([...again.channels.keys()]).toEqual([...fake.channels.keys()])
    expect(again.channel('@lofi-garden').uploads).toEqual(fake.channel('@lofi-garden').uploads)
    expect(new FakeYoutube({ seed: 2, media: false }).channel('@lofi-garden').id).not.toBe(fake.channel('@lofi-garden').id)
  })

  test('listens on loopback only', () => {
    expect(new URL(fake.url).hostname).toBe('127.0.0.1')
  })

  test('channel pages carry the channel in their meta tags, by id and by handle', async () => {
    const star = fake.channel('@star-lab')
    for (const path of [`/channel/${star.id}`, '/@star-lab', '/@Star-Lab']) {
      const html = await (await get(path)).text()
      expect(html).toContain(`<link rel="canonical" href="https://www.youtube.com/channel/${star.id}">`)
      expect(html).toContain(`<meta property="og:title" content="Star Lab">`)
      expect(html).toContain(`<meta property="og:image" content="${fake.url}/channel-art/${star.id}.svg?s=900">`)
    }
    expect((await get('/@nobody-here')).status).toBe(404)
    expect((await get(`/channel/UC${'x'.repeat(22)}`)).status).toBe(404)
  })

  test('Shorts and streams: the UUSH playlist, liveBroadcastContent and the feed link form', async () => {
    const star = fake.channel('@star-lab')
    const shorts = star.uploads.filter((id) => fake.videos.get(id)!.kind === 'short')
    expect(shorts).toHaveLength(3)
    const playlist = await (await get(`/youtube/v3/playlistItems?part=contentDetails&playlistId=UUSH${star.id.slice(2)}`)).json()
    expect(playlist.items.map((i: { contentDetails: { videoId: string } }) => i.contentDetails.videoId)).toEqual(shorts)
    // a channel without Shorts has no such playlist
    expect((await get(`/youtube/v3/playlistItems?part=contentDetails&playlistId=UUSH${fake.channel('@tiny-kitchen').id.slice(2)}`)).status).toBe(404)
    const arcade = fake.channel('@pixel-arcade').uploads
    const videos = await (await get(`/youtube/v3/videos?part=snippet,contentDetails&id=${arcade.slice(0, 4).join(',')}`)).json()
    expect(videos.items.map((v: { snippet: { liveBroadcastContent: string } }) => v.snippet.liveBroadcastContent)).toEqual(['none', 'none', 'live', 'upcoming'])
    const feed = await (await get(`/feeds/videos.xml?channel_id=${star.id}`)).text()
    expect(feed).toContain(`<link rel="alternate" href="https://www.youtube.com/shorts/${shorts[0]}"/>`)
    expect(feed).toContain(`<link rel="alternate" href="https://www.youtube.com/watch?v=${star.uploads[0]}"/>`)
  })

  test('the IFrame Player API stand-in: the script, the embed page and its error codes', async () => {
    const js = await (await get('/iframe_api')).text()
    expect(js).toContain('window.YT = { Player: Player, PlayerState: PlayerState')
    expect(js).toContain('onYouTubeIframeAPIReady')
    const id = fake.channel('@star-lab').uploads[0]!
    expect((await get(`/embed/${id}?enablejsapi=1`)).headers.get('content-type')).toContain('text/html')
    const status = async (v: string) => (await (await get(`/embed/${v}/status`)).json()).error
    expect(await status(id)).toBeNull()
    fake.embedErrors.set(id, 150)
    expect(await status(id)).toBe(150)
    fake.embedErrors.delete(id)
    expect(await status('zzzzzzzzzzz')).toBe(100) // removed or never there
  })

  test('error bodies like the real API', async () => {
    const res = await get('/youtube/v3/channels?part=snippet')
    expect(res.status).toBe(400)
    const body = await res.json()
    expect(body.error).toMatchObject({ code: 400, errors: [{ reason: 'missingRequiredParameter' }] })
    expect((await get('/youtube/v3/search?part=snippet&q=x')).status).toBe(404)
    expect((await get(`/youtube/v3/videos?part=snippet&id=${Array(51).fill('a').join(',')}`)).status).toBe(400)
    expect((await get('/youtube/v3/playlistItems?part=snippet&playlistId=UUx&maxResults=51')).status).toBe(404)
    fake.quota = 0
    const refused = await get('/youtube/v3/videoCategories?part=snippet')
    expect(refused.status).toBe(403)
    expect((await refused.json()).error.errors[0]).toMatchObject({ reason: 'quotaExceeded', domain: 'youtube.quota' })
    fake.reset()
  })

  test('the WebM clip: whole, and by byte range', async () => {
    const id = fake.channel('@tiny-kitchen').uploads[0]!
    const whole = await get(`/media/${id}.webm`)
    expect(whole.headers.get('content-type')).toBe('video/webm')
    const bytes = new Uint8Array(await whole.arrayBuffer())
    expect([...bytes.slice(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]) // EBML magic
    const part = await get(`/media/${id}.webm`, { headers: { range: 'bytes=10-19' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${bytes.length}`)
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(10, 20))
    expect((await get(`/media/${id}.webm`, { headers: { range: `bytes=${bytes.length + 5}-` } })).status).toBe(416)
    expect((await get('/media/zzzzzzzzzzz.webm')).status).toBe(404)
  })

  test('thumbnails and the control API', async () => {
    const kitchen = fake.channel('@tiny-kitchen')
    const thumb = await get(`/vi/${kitchen.uploads[0]}/hqdefault.svg`)
    expect(thumb.headers.get('content-type')).toBe('image/svg+xml')
    expect(await thumb.text()).toStartWith('<svg')
    expect((await get(`/channel-art/${kitchen.id}.svg`)).status).toBe(200)
    const added = (await (await get('/_fake/channels/@tiny-kitchen/uploads?count=2', { method: 'POST' })).json()) as string[]
    expect(added).toHaveLength(2)
    expect(fake.channel('@tiny-kitchen').uploads.slice(0, 2)).toEqual(added)
    const stats = await (await get('/_fake/stats')).json()
    expect(stats).toMatchObject({ units: expect.any(Number) })
  })
})

describe('what the offline demo adds (scripts/demo.ts)', () => {
  test('a watch page with a DASH manifest of the video alone and the audio alone, and a JPEG still', async () => {
    const id = fake.channel('@tiny-kitchen').uploads[1]!
    const page = await (await get(`/watch?v=${id}`)).text()
    expect(page).toContain(`<source src="/media/${id}.mpd" type="application/dash+xml">`)
    expect(page).toContain(`<title>${fake.videos.get(id)!.title}</title>`)
    const mpd = await (await get(`/media/${id}.mpd`)).text()
    expect(mpd).toContain(`<BaseURL>${fake.url}/media/${id}.video.webm</BaseURL>`)
    expect(mpd).toContain(`<BaseURL>${fake.url}/media/${id}.weba</BaseURL>`)
    const audio = await get(`/media/${id}.weba`)
    expect(audio.headers.get('content-type')).toBe('audio/webm')
    const video = await get(`/media/${id}.video.webm`)
    const clip = await get(`/media/${id}.webm`)
    const [a, v, c] = await Promise.all([audio, video, clip].map(async (r) => (await r.arrayBuffer()).byteLength))
    // the two parts are the clip split, not copies of it
    expect(a! + v!).toBeGreaterThan(c! * 0.9)
    expect(a!).toBeLessThan(c! / 2)
    const still = await get(`/vi/${id}/hqdefault.jpg`)
    expect([...new Uint8Array(await still.arrayBuffer()).slice(0, 2)]).toEqual([0xff, 0xd8])
    expect((await get('/watch?v=zzzzzzzzzzz')).status).toBe(404)
    expect((await get('/media/zzzzzzzzzzz.mpd')).status).toBe(404)
  })

  test('SponsorBlock by hash prefix: the three newest videos of a channel, filtered by category', async () => {
    const [first, second, , fourth] = fake.channel('@retro-motors').uploads
    const prefix = (id: string) => new Bun.CryptoHasher('sha256').update(id).digest('hex').slice(0, 4)
    const ask = async (id: string, categories: string[]) => {
      const res = await get(`/sponsorblock/api/skipSegments/${prefix(id)}?categories=${encodeURIComponent(JSON.stringify(categories))}&actionTypes=${encodeURIComponent('["skip","mute"]')}`)
      // 404 when no video of the prefix has segments, as the real API answers
      return res.status === 404 ? undefined : ((await res.json()) as { videoID: string; segments: { category: string; segment: number[] }[] }[]).find((v) => v.videoID === id)
    }
    expect((await ask(first!, ['sponsor', 'selfpromo']))?.segments.map((s) => [s.category, s.segment])).toEqual([['sponsor', [4, 10]], ['selfpromo', [20, 24]]])
    expect((await ask(second!, ['sponsor', 'selfpromo']))?.segments.map((s) => s.category)).toEqual(['sponsor'])
    expect(await ask(first!, ['intro'])).toBeUndefined()
    expect(await ask(fourth!, ['sponsor'])).toBeUndefined()
    expect((await get('/sponsorblock/api/skipSegments/xyz')).status).toBe(404)
  })

  test("the demo's yt-dlp sends YouTube links to the fake, and the real yt-dlp finds an audio-only format there", async () => {
    const base = fake.url
    expect(onFake('https://www.youtube.com/watch?v=abcdefghijk', base)).toBe(`${base}/watch?v=abcdefghijk`)
    expect(onFake('https://youtu.be/abcdefghijk', base)).toBe(`${base}/watch?v=abcdefghijk`)
    expect(onFake('http://127.0.0.1:9/proxy', base)).toBe('http://127.0.0.1:9/proxy')
    expect(onFake('--no-playlist', base)).toBe('--no-playlist')
    const dir = mkdtempSync(join(tmpdir(), 'tunefeed-demo-ytdlp-'))
    try {
      const ytdlp = writeDemoYtdlp(dir, base)
      const id = fake.channel('@star-lab').uploads[0]!
      const before = fake.watchRequests
      // not spawnSync: the fake answers from this process
      const run = Bun.spawn([ytdlp, '--ignore-config', '-J', '--', `https://www.youtube.com/watch?v=${id}`], { stdout: 'pipe', stderr: 'pipe' })
      const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited])
      expect({ code, err: code ? err : '' }).toEqual({ code: 0, err: '' })
      const info = JSON.parse(out) as { formats: { vcodec: string; acodec: string; height?: number }[] }
      expect(info.formats.map((f) => [f.vcodec, f.acodec, f.height ?? null])).toEqual([['none', 'opus', null], ['vp8', 'none', 180]])
      expect(fake.watchRequests).toBe(before + 1)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)
})
