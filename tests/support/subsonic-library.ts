import { expect } from 'bun:test'
import { SubsonicAPI } from 'subsonic-api'
import { type Client, createTestApp, serveTestApp, signUp, type TestApp } from './app.ts'
import { userIdOf } from './music.ts'
import { addFinishedJob } from './subsonic.ts'

// The Subsonic API end to end (src/subsonic/subsonic*.test.ts): the real OpenSubsonic client (npm
// subsonic-api) over HTTP with both sign-ins, two users, finished jobs written as the pipeline leaves them.

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely, field by field
export type Json = any

export interface Person {
  client: Client
  email: string
  password: string
  userId: string
  appPassword: string
  apiKey: string
  /** OpenSubsonic client with the salted token (username + app password). */
  token: SubsonicAPI
  /** The same with the API key. */
  keyed: SubsonicAPI
}

export interface SubsonicLibrary {
  t: TestApp
  server: ReturnType<typeof serveTestApp>
  /** The served app's address, with a trailing slash. */
  base: string
  alice: Person
  bob: Person
  /** Alice's single-track job ("First Light" by The Dawn on Morning, with artwork). */
  single: string
  /** Alice's chapter split (Bravo, Live: three tracks). */
  split: string
  /** Bob's job. */
  other: string
  /** Another signed-up user with an app password and an API key. */
  person(): Promise<Person>
  /** A raw /rest request (JSON unless `f` is given). */
  rest(method: string, params: Record<string, string | string[]>, init?: RequestInit): Promise<Response>
  /** A /rest request that must answer 200: its parsed `subsonic-response`. */
  json(method: string, params: Record<string, string | string[]>): Promise<Json>
  close(): Promise<void>
}

/** A served test app with Alice (three songs in two albums plus a split) and Bob (one song). */
export async function startSubsonicLibrary(): Promise<SubsonicLibrary> {
  const t = await createTestApp()
  const server = serveTestApp(t)
  const base = `http://127.0.0.1:${server.port}/`
  async function person(): Promise<Person> {
    const { client, email, password } = await signUp(t)
    const userId = await userIdOf(t, client)
    const made = await client.request('/api/auth/subsonic', { method: 'POST' })
    expect(made.status).toBe(201)
    const { username, password: appPassword } = (await made.json()) as { username: string; password: string }
    expect(username).toBe(email)
    const tok = await client.post('/api/auth/tokens', { name: 'player' })
    const { token: apiKey } = (await tok.json()) as { token: string }
    return {
      client,
      email,
      password,
      userId,
      appPassword,
      apiKey,
      token: new SubsonicAPI({ url: base, auth: { username: email, password: appPassword } }),
      keyed: new SubsonicAPI({ url: base, auth: { apiKey } }),
    }
  }
  const rest = (method: string, params: Record<string, string | string[]>, init: RequestInit = {}) => {
    const q = new URLSearchParams()
    for (const [k, v] of Object.entries({ f: 'json', v: '1.16.1', c: 'test', ...params })) for (const x of [v].flat()) q.append(k, x)
    return fetch(`${base}rest/${method}?${q}`, init)
  }
  const json = async (method: string, params: Record<string, string | string[]>) => {
    const res = await rest(method, params)
    expect(res.status).toBe(200)
    return ((await res.json()) as { 'subsonic-response': Json })['subsonic-response']
  }
  const alice = await person()
  const bob = await person()
  const single = await addFinishedJob(t, alice.userId, { title: 'First Light', artist: 'The Dawn', album: 'Morning', grouping: 'Ambient', year: 2001, trackNumber: 2 })
  const split = await addFinishedJob(t, alice.userId, { title: 'Live Set', artist: 'Bravo', album: 'Live', tracks: ['Intro', 'Song Two', 'Finale'], year: 2010 })
  await addFinishedJob(t, alice.userId, { title: 'Second', artist: 'The Dawn', album: 'Morning', grouping: 'Ambient', year: 2001, trackNumber: 1, artwork: false })
  const other = await addFinishedJob(t, bob.userId, { title: 'Bobs Song', artist: 'Bob', album: 'Bobs Album' })
  return {
    t,
    server,
    base,
    alice,
    bob,
    single,
    split,
    other,
    person,
    rest,
    json,
    async close() {
      server.stop(true)
      await t.close()
    },
  }
}
