import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { SubsonicAPI } from 'subsonic-api'
import { type Client, createTestApp, serveTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { userIdOf } from '../../tests/support/music.ts'
import { addFinishedJob } from '../../tests/support/subsonic.ts'

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely, field by field
type Json = any

// What players ask of a server beyond the basics (issue 35): the sync calls, the extensions,
// the index-based queue, bookmarks. The real OpenSubsonic client (npm subsonic-api) where it
// knows the method, raw HTTP for the rest.
setDefaultTimeout(60_000)

let t: TestApp
let server: ReturnType<typeof serveTestApp>
let base: string

interface Person {
  client: Client
  email: string
  userId: string
  apiKey: string
  api: SubsonicAPI
}
let alice: Person
let bob: Person
let morning: string[]
let bobSong: string

async function person(): Promise<Person> {
  const { client, email } = await signUp(t)
  const userId = await userIdOf(t, client)
  const tok = await client.post('/api/auth/tokens', { name: 'player' })
  const { token: apiKey } = (await tok.json()) as { token: string }
  return { client, email, userId, apiKey, api: new SubsonicAPI({ url: base, auth: { apiKey } }) }
}

async function json(p: Person, method: string, params: Record<string, string | string[]> = {}) {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries({ f: 'json', v: '1.16.1', c: 'test', apiKey: p.apiKey, ...params })) for (const x of [v].flat()) q.append(k, x)
  const res = await fetch(`${base}rest/${method}?${q}`)
  expect(res.status).toBe(200)
  return ((await res.json()) as { 'subsonic-response': Json })['subsonic-response']
}

beforeAll(async () => {
  t = await createTestApp()
  server = serveTestApp(t)
  base = `http://127.0.0.1:${server.port}/`
  alice = await person()
  bob = await person()
  const a = await addFinishedJob(t, alice.userId, { title: 'First Light', artist: 'The Dawn', album: 'Morning', year: 2001, trackNumber: 1 })
  const b = await addFinishedJob(t, alice.userId, { title: 'Second', artist: 'The Dawn', album: 'Morning', year: 2001, trackNumber: 2 })
  await addFinishedJob(t, alice.userId, { title: 'Live Set', artist: 'Bravo', album: 'Live', tracks: ['Intro', 'Finale'] })
  morning = [`tr-${a}`, `tr-${b}`]
  bobSong = `tr-${await addFinishedJob(t, bob.userId, { title: 'Bobs Song', artist: 'Bob', album: 'Bobs Album' })}`
}, 120_000)
afterAll(async () => {
  server?.stop(true)
  await t?.close()
})

describe('albums', () => {
  test('every album field agrees between getAlbumList2 (first answer, nothing measured yet) and getAlbum', async () => {
    const { albumList2 } = await alice.api.getAlbumList2({ type: 'alphabeticalByName', size: 10 })
    expect(albumList2.album!.length).toBe(2)
    for (const listed of albumList2.album!) {
      expect(listed.duration).toBeGreaterThan(0)
      const { album } = await alice.api.getAlbum({ id: listed.id })
      const { song, ...fields } = album
      expect(song!.length).toBe(listed.songCount)
      expect(fields).toEqual(listed)
    }
  })
})
