// A DeArrow stand-in on 127.0.0.1 with the real services' response shapes: the branding API
// (`GET /api/branding/<4 hex of SHA-256(videoID)>` → `{<videoID>: {titles, thumbnails, randomTime,
// videoDuration}}` for the videos of that prefix, 404 when it has none) and the thumbnail service
// (`GET /api/v1/getThumbnail?videoID&time` → an image, or 204 with `X-Failure-Reason` while none).
// It records every request; a branding request that carries anything but a hash prefix is kept in
// `leaks` (a test asserts there are none).

export interface DearrowTitle {
  title: string
  original: boolean
  votes: number
  locked: boolean
  UUID: string
}
export interface DearrowThumbnail {
  timestamp: number | null
  original: boolean
  votes: number
  locked: boolean
  UUID: string
}

/** A 16×8 PNG (orange): small, but a real image a browser draws. */
export const THUMB_PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAABAAAAAICAIAAAB/FOjAAAAACXBIWXMAAAABAAAAAQBPJcTWAAAAFElEQVR4nGP4t4SBJESa6lENRCIAjejRAS90IKEAAAAASUVORK5CYII='),
  (c) => c.charCodeAt(0),
)

export interface FakeDearrow {
  url: string
  thumbUrl: string
  /** Every path with its query, in order. */
  requests: string[]
  /** Branding requests that were not a bare 4-hex prefix. */
  leaks: string[]
  branding: Map<string, { titles: DearrowTitle[]; thumbnails: DearrowThumbnail[] }>
  /** While true, every request is answered 503. */
  down: boolean
  stop(): void
}

const uuid = () => crypto.randomUUID()
export const title = (t: string, votes = 0, locked = false, original = false): DearrowTitle => ({ title: t, original, votes, locked, UUID: uuid() })
export const thumbnail = (timestamp: number | null, votes = 0, locked = false, original = false): DearrowThumbnail => ({
  timestamp,
  original,
  votes,
  locked,
  UUID: uuid(),
})

export function startFakeDearrow(): FakeDearrow {
  const fake: FakeDearrow = {
    url: '',
    thumbUrl: '',
    requests: [],
    leaks: [],
    branding: new Map(),
    down: false,
    stop: () => server.stop(true),
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const url = new URL(req.url)
      fake.requests.push(url.pathname + url.search)
      if (fake.down) return new Response('down', { status: 503 })
      const b = /^\/api\/branding\/(.*)$/.exec(url.pathname)
      if (b) {
        const prefix = b[1]!
        if (!/^[0-9a-f]{4}$/.test(prefix) || url.search) {
          fake.leaks.push(url.pathname + url.search)
          return new Response('bad prefix', { status: 400 })
        }
        const out: Record<string, unknown> = {}
        for (const [id, entry] of fake.branding) {
          if (new Bun.CryptoHasher('sha256').update(id).digest('hex').startsWith(prefix)) {
            out[id] = { ...entry, randomTime: 0.37, videoDuration: 30 }
          }
        }
        return Object.keys(out).length ? Response.json(out) : new Response('Not Found', { status: 404 })
      }
      if (url.pathname === '/api/v1/getThumbnail') {
        const id = url.searchParams.get('videoID') ?? ''
        const time = Number(url.searchParams.get('time'))
        const known = fake.branding.get(id)?.thumbnails.some((t) => t.timestamp === time)
        if (!known) return new Response(null, { status: 204, headers: { 'X-Failure-Reason': 'Thumbnail not generated yet' } })
        return new Response(THUMB_PNG, { headers: { 'content-type': 'image/png' } })
      }
      return new Response('Not Found', { status: 404 })
    },
  })
  fake.url = `http://127.0.0.1:${server.port}`
  fake.thumbUrl = `http://127.0.0.1:${server.port}`
  return fake
}
