import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SKIP_SEGMENTS_PATH, type StandInSegment, skipSegmentsAnswer } from '../../scripts/fake-youtube/sponsorblock.ts'
import { testMedia } from './media.ts'

/**
 * Local stand-ins on 127.0.0.1 for the public services the music area uses,
 * answering with their real JSON shapes (fixtures in
 * tests/fixtures/music-services/, sources noted there):
 * - MusicBrainz `/mb/ws/2/recording?query=...&fmt=json` (Lucene phrases
 *   `recording:"..."` and `artist:"..."` matched against its recordings);
 *   like the real service it answers 403 without a User-Agent and 503 to a
 *   client asking more than once a second;
 * - the Cover Art Archive `/caa/release/<mbid>` (404 without art) and the images;
 * - SponsorBlock `/sb/api/skipSegments/<sha256 prefix>?categories=[...]&actionTypes=[...]`
 *   (the answer is the fake YouTube's: scripts/fake-youtube/sponsorblock.ts).
 * Point MUSICBRAINZ_URL, COVERART_URL and SPONSORBLOCK_URL at `mbUrl`, `caaUrl`, `sbUrl`.
 */
export interface MusicServices {
  mbUrl: string
  caaUrl: string
  sbUrl: string
  /** Every MusicBrainz request: when, its User-Agent and whether it was refused for the rate. */
  mbRequests: { at: number; userAgent: string | null; query: string | null; status: number }[]
  sbRequests: string[]
  /** SponsorBlock segments by YouTube video id. */
  segments: Map<string, StandInSegment[]>
  sponsorBlockDown: boolean
  musicBrainzDown: boolean
  stop(): Promise<void>
}

const FIXTURES = join(import.meta.dir, '../fixtures/music-services')
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'))

// biome-ignore lint/suspicious/noExplicitAny: fixture JSON walked freely by a test stand-in
type Json = Record<string, any>

export async function startMusicServices(): Promise<MusicServices> {
  const media = await testMedia()
  const search = fixture('musicbrainz-recording-search.json') as Json
  const coverJson = fixture('coverartarchive-release.json') as Json
  const covered = new Set(['aee2e5c1-4b11-4a8e-9d0d-3b4bbd9b6c53'])
  const mbRequests: MusicServices['mbRequests'] = []
  const sbRequests: string[] = []
  const state = { sponsorBlockDown: false, musicBrainzDown: false }
  const segments = new Map<string, StandInSegment[]>()
  const json = (body: unknown, status = 200) => Response.json(body, { status })

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const url = new URL(req.url)
      const base = url.origin
      if (url.pathname === '/mb/ws/2/recording') {
        const entry = { at: performance.now(), userAgent: req.headers.get('user-agent'), query: url.searchParams.get('query'), status: 200 }
        mbRequests.push(entry)
        if (state.musicBrainzDown) return new Response('Bad Gateway', { status: 502 })
        const previous = mbRequests.at(-2)
        if (!entry.userAgent || /^(bun|node|undici)/i.test(entry.userAgent)) entry.status = 403
        else if (previous && previous.status !== 403 && entry.at - previous.at < 950) entry.status = 503
        if (entry.status === 403) return json({ error: 'Your requests are being blocked: missing or generic User-Agent.' }, 403)
        if (entry.status === 503) return json({ error: 'Your requests are exceeding the allowable rate limit.' }, 503)
        if (url.searchParams.get('fmt') !== 'json') return new Response('<metadata/>', { headers: { 'content-type': 'application/xml' } })
        const phrases = Object.fromEntries(
          [...(entry.query ?? '').matchAll(/(\w+):"((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!.replace(/\\(.)/g, '$1').toLowerCase()]),
        )
        const recordings = (search.recordings as Json[]).filter((r) => {
          const artist = (r['artist-credit'] as Json[]).map((c) => c.name).join(' ').toLowerCase()
          return (!phrases.recording || String(r.title).toLowerCase().includes(phrases.recording)) && (!phrases.artist || artist.includes(phrases.artist))
        })
        const limit = Number(url.searchParams.get('limit') ?? 25)
        return json({ created: new Date().toISOString(), count: recordings.length, offset: 0, recordings: recordings.slice(0, limit) })
      }
      const release = /^\/caa\/release\/([0-9a-f-]{36})$/.exec(url.pathname)
      if (release) {
        if (!covered.has(release[1]!)) return new Response('No cover art found for release', { status: 404 })
        // the fixture's image URLs, moved onto this server
        return json(JSON.parse(JSON.stringify(coverJson).replaceAll('http://coverartarchive.org', `${base}/caa`)))
      }
      if (/^\/caa\/release\/[0-9a-f-]{36}\/[\d-]+\.jpg$/.test(url.pathname)) {
        return new Response(Bun.file(media.jpg), { headers: { 'content-type': 'image/jpeg' } })
      }
      const skip = SKIP_SEGMENTS_PATH.exec(url.pathname.slice('/sb'.length))
      if (url.pathname.startsWith('/sb/') && skip) {
        sbRequests.push(`${url.pathname}${url.search}`)
        if (state.sponsorBlockDown) return new Response('Bad Gateway', { status: 502 })
        return skipSegmentsAnswer(segments, skip[1]!, url.searchParams)
      }
      return new Response('not found', { status: 404 })
    },
  })
  const root = `http://127.0.0.1:${server.port}`
  // the documented example, served as is
  for (const v of fixture('sponsorblock-skip-segments.json') as Json[]) segments.set(v.videoID, v.segments)
  return {
    mbUrl: `${root}/mb`,
    caaUrl: `${root}/caa`,
    sbUrl: `${root}/sb`,
    mbRequests,
    sbRequests,
    segments,
    get sponsorBlockDown() {
      return state.sponsorBlockDown
    },
    set sponsorBlockDown(v: boolean) {
      state.sponsorBlockDown = v
    },
    get musicBrainzDown() {
      return state.musicBrainzDown
    },
    set musicBrainzDown(v: boolean) {
      state.musicBrainzDown = v
    },
    stop: () => server.stop(true),
  }
}
