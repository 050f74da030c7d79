/**
 * An LRCLIB stand-in on 127.0.0.1 (https://lrclib.net/docs): `GET /api/get?artist_name&track_name&album_name&duration`
 * answers a track with LRCLIB's own shape, or 404 `{code, name, message}` when none is known. Tracks are
 * set by `artist|title`; `failWith` makes every answer that status; every request is recorded.
 */
export interface LrclibTrack {
  id: number
  trackName: string
  artistName: string
  albumName: string
  duration: number
  instrumental: boolean
  plainLyrics: string | null
  syncedLyrics: string | null
}

export interface Lrclib {
  url: string
  requests: URL[]
  tracks: Map<string, Omit<LrclibTrack, 'id' | 'trackName' | 'artistName' | 'albumName' | 'duration'>>
  failWith: number | null
  stop(): Promise<void>
}

export function startLrclib(): Lrclib {
  const state: Lrclib = { url: '', requests: [], tracks: new Map(), failWith: null, stop: async () => server.stop(true) }
  let next = 1
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const url = new URL(req.url)
      state.requests.push(url)
      if (state.failWith) return new Response('upstream trouble', { status: state.failWith })
      if (url.pathname !== '/api/get') return new Response('Not Found', { status: 404 })
      const q = (k: string) => url.searchParams.get(k) ?? ''
      const found = state.tracks.get(`${q('artist_name')}|${q('track_name')}`)
      if (!found) return Response.json({ code: 404, name: 'TrackNotFound', message: 'Failed to find specified track' }, { status: 404 })
      const track: LrclibTrack = {
        id: next++,
        trackName: q('track_name'),
        artistName: q('artist_name'),
        albumName: q('album_name'),
        duration: Number(q('duration')) || 0,
        ...found,
      }
      return Response.json(track)
    },
  })
  state.url = `http://127.0.0.1:${server.port}`
  return state
}
