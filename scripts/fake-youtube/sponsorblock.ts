import type { FakeData } from './data.ts'

// A SponsorBlock stand-in (`<url>/sponsorblock`, the app's SPONSORBLOCK_URL):
// `GET /api/skipSegments/<sha256 prefix>?categories=[...]&actionTypes=[...]`, answered as
// sponsor.ajay.app answers (the videos whose hash starts with the prefix, each with its
// segments; 404 when none). Shared with the tests' stand-in (tests/support/music-services.ts).

export interface StandInSegment {
  category: string
  segment: [number, number]
  actionType?: string
}

const sha256 = (s: string) => new Bun.CryptoHasher('sha256').update(s).digest('hex')

/** The answer to one skipSegments request over `segments` (by video id). */
export function skipSegmentsAnswer(segments: Map<string, StandInSegment[]>, prefix: string, params: URLSearchParams): Response {
  const list = (name: string, fallback: string[]) => {
    try {
      const value = JSON.parse(params.get(name) ?? '')
      return Array.isArray(value) ? (value as string[]) : fallback
    } catch {
      return fallback
    }
  }
  const categories = list('categories', ['sponsor'])
  const actionTypes = list('actionTypes', ['skip'])
  const videos = [...segments.entries()]
    .filter(([id]) => sha256(id).startsWith(prefix))
    .map(([videoID, all]) => ({
      videoID,
      hash: sha256(videoID),
      segments: all
        .filter((s) => categories.includes(s.category) && actionTypes.includes(s.actionType ?? 'skip'))
        .map((s, i) => ({ actionType: 'skip', ...s, UUID: sha256(`${videoID}${i}`), videoDuration: 0, locked: 0, votes: 1, description: '' })),
    }))
    .filter((v) => v.segments.length)
  return videos.length ? Response.json(videos) : new Response('Not Found', { status: 404 })
}

/** The path pattern of a skipSegments request under the stand-in's base (`/api/skipSegments/<prefix>`). */
export const SKIP_SEGMENTS_PATH = /^\/api\/skipSegments\/([0-9a-f]{4,64})$/

/**
 * The demo's segments: the three newest videos of each channel have a sponsor spot
 * (4-10 s of the 30 s clip), the newest one also a self-promotion (20-24 s): enough
 * to see a skip in the player and a cut in a podcast episode.
 */
export function demoSegments(data: FakeData): Map<string, StandInSegment[]> {
  const segments = new Map<string, StandInSegment[]>()
  for (const channel of data.channels.values()) {
    const videos = channel.uploads.filter((id) => data.videos.get(id)?.kind === 'video').slice(0, 3)
    videos.forEach((id, i) => {
      segments.set(id, [{ category: 'sponsor', segment: [4, 10] }, ...(i === 0 ? [{ category: 'selfpromo', segment: [20, 24] as [number, number] }] : [])])
    })
  }
  return segments
}
