import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { FakeYoutube, startFakeYoutube } from './fake-youtube.ts'

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
