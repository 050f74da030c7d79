import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Client, signUp, startTestAppBeside, type TestApp } from '../../tests/support/app.ts'
import { until } from '../../tests/support/wait.ts'
import { expectError } from '../../tests/support/http.ts'
import { startMusicServices, type MusicServices } from '../../tests/support/music-services.ts'
import type { Candidate } from './schema.ts'

// GET /musicbrainz against the MusicBrainz and Cover Art Archive stand-ins,
// which refuse a missing User-Agent and more than one request a second.
setDefaultTimeout(60_000)

let t: TestApp
let services: MusicServices
let alice: Client

beforeAll(async () => {
  const mb = (s: MusicServices) => ({ MUSICBRAINZ_URL: s.mbUrl, COVERART_URL: s.caaUrl })
  ;({ server: services, alice } = t = await startTestAppBeside(await startMusicServices(), mb))
}, 60_000)
afterAll(() => t?.close())

const search = (artist: string, title: string) =>
  alice.get(`/api/music/musicbrainz?artist=${encodeURIComponent(artist)}&title=${encodeURIComponent(title)}`)

describe('GET /api/music/musicbrainz', () => {
  test('recordings with release, year, track number and count, and the front cover, best first', async () => {
    const res = await search('Daft Punk', 'Get Lucky')
    expect(res.status).toBe(200)
    const { candidates } = (await res.json()) as { candidates: Candidate[] }
    expect(candidates).toEqual([
      {
        title: 'Get Lucky',
        artist: 'Daft Punk feat. Pharrell Williams',
        // the official album is preferred over the single
        album: 'Random Access Memories',
        year: 2013,
        trackNumber: 8,
        trackCount: 13,
        coverUrl: `${services.caaUrl}/release/aee2e5c1-4b11-4a8e-9d0d-3b4bbd9b6c53/5769210471-500.jpg`,
        recordingId: '8f0e6c3d-7b0e-4a8b-9a43-2d4c7e0f5a11',
        releaseId: 'aee2e5c1-4b11-4a8e-9d0d-3b4bbd9b6c53',
      },
      {
        title: 'Get Lucky (radio edit)',
        artist: 'Daft Punk',
        album: "Now That's What I Call Music! 85",
        year: 2013,
        trackNumber: 3,
        trackCount: 22,
        coverUrl: null,
        recordingId: '3c1f1e2d-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
        releaseId: 'b5a1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d',
      },
    ])
    const sent = services.mbRequests.at(-1)!
    expect(sent.userAgent).toMatch(/^Tunefeed\/\d+\.\d+\.\d+ \( \S+ \)$/)
    expect(sent.query).toBe('recording:"Get Lucky" AND artist:"Daft Punk"')
    // the cover URL is one the job can fetch as artwork
    const cover = await fetch(candidates[0]!.coverUrl!)
    expect(cover.headers.get('content-type')).toBe('image/jpeg')
  })

  test('searches at once are queued one a second: the service never refuses one for the rate', async () => {
    // each request leaves a second after the previous one was answered, so however late a request
    // reaches the service on a loaded machine, the next one cannot come within a second of it
    const before = services.mbRequests.length
    const answers = await Promise.all([search('A', 'One'), search('B', 'Two'), search('C', 'Three')])
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200])
    const sent = services.mbRequests.slice(before)
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200])
    for (let i = 1; i < sent.length; i++) expect(sent[i]!.at - sent[i - 1]!.at).toBeGreaterThanOrEqual(950)
    for (const r of answers) expect(((await r.json()) as { candidates: unknown[] }).candidates).toEqual([])
  })

  test('each user gets a fair share: one user’s burst does not hold back another’s search (issue 25)', async () => {
    const { client: bob } = await signUp(t)
    const before = services.mbRequests.length
    const burst = ['Burst 1', 'Burst 2', 'Burst 3', 'Burst 4'].map((title) => search('Alice', title))
    // bob asks once alice's first search reached the service
    await until('alice’s first search at the service', () => services.mbRequests.length > before, 30_000, 20)
    const bobs = bob.get(`/api/music/musicbrainz?artist=Bob&title=${encodeURIComponent('Bob once')}`)
    const statuses = await Promise.all([...burst, bobs].map(async (r) => (await r).status))
    expect(statuses).toEqual([200, 200, 200, 200, 200])
    const order = services.mbRequests.slice(before).map((r) => /recording:"([^"]+)"/.exec(r.query ?? '')?.[1])
    // bob's search went second, not after alice's whole burst
    expect(order).toEqual(['Burst 1', 'Bob once', 'Burst 2', 'Burst 3', 'Burst 4'])
    expect(services.mbRequests.slice(before).map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
  })

  test('at most 5 searches of one user wait at once: a 6th is 429 at once; others are not refused', async () => {
    const { client: carol } = await signUp(t)
    const { client: dave } = await signUp(t)
    const ask = (client: Client, title: string) => client.get(`/api/music/musicbrainz?artist=Someone&title=${encodeURIComponent(title)}`)
    // dave's search goes first: carol's six arrive while the queue waits its second after it
    const first = ask(dave, 'Dave first')
    await until('dave’s search at the service', () => services.mbRequests.some((r) => r.query?.includes('Dave first')), 30_000, 5)
    const six = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => ask(carol, `Wait ${i}`)))
    const refused = six.filter((r) => r.status === 429)
    expect(refused).toHaveLength(1)
    expect(refused[0]!.headers.get('retry-after')).toBe('5')
    expect(((await refused[0]!.json()) as { detail: string }).detail).toBe('You have 5 MusicBrainz searches waiting: wait for them to finish, then try again.')
    expect(six.filter((r) => r.status === 200)).toHaveLength(5)
    expect((await first).status).toBe(200)
    expect((await ask(dave, 'Dave meanwhile')).status).toBe(200)
  })

  test('the same search again is answered from the cache', async () => {
    const before = services.mbRequests.length
    expect((await search('daft punk', 'get lucky')).status).toBe(200)
    expect(services.mbRequests.length).toBe(before)
  })

  test('bad input and an outage', async () => {
    expect((await new Client(t).get('/api/music/musicbrainz?title=x')).status).toBe(401)
    await expectError(alice.get('/api/music/musicbrainz?artist=x'), 422, /^title: /)
    await expectError(search('x', 'y'.repeat(301)), 422, /^title: /)
    services.musicBrainzDown = true
    try {
      await expectError(search('Nobody', 'Nothing'), 400, 'Unable to reach MusicBrainz.')
    } finally {
      services.musicBrainzDown = false
    }
  })
})
