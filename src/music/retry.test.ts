import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { expectError } from '../../tests/support/http.ts'
import type { MediaServer, TestMedia } from '../../tests/support/media.ts'
import { musicForm, postForm, startMusicTestApp, waitForJob, type MusicTestApp } from '../../tests/support/music.ts'
import { type Client, signUp } from '../../tests/support/app.ts'
import type { MusicJob } from './schema.ts'

// POST /api/music/jobs/{id}/retry: a failed job runs again from its row, as the same job.
setDefaultTimeout(60_000)

let t: MusicTestApp
let media: MediaServer
let files: TestMedia
let alice: Client

beforeAll(async () => ({ media, files, alice } = t = await startMusicTestApp()), 60_000)
afterAll(() => t?.close())

describe('POST /api/music/jobs/{id}/retry', () => {
  test('a job whose link was missing fails; once the file is there, Retry runs the same job to completion', async () => {
    const res = await postForm(alice, '/api/music/jobs/create', musicForm({ video_url: `${media.url}/files/later.mp3`, title: 'Later', artist: 'A', album: 'B' }))
    expect(res.status).toBe(201)
    const { id } = (await res.json()) as { id: string }
    const failed = await waitForJob(alice, id)
    expect(failed).toMatchObject({ failed: expect.any(String), errorKind: 'unavailable' })

    media.addFile('later.mp3', files.mp3)
    const retried = await alice.post(`/api/music/jobs/${id}/retry`)
    expect(retried.status).toBe(200)
    expect((await retried.json()) as MusicJob).toMatchObject({ id, failed: null, completed: null, error: null })
    expect(await waitForJob(alice, id)).toMatchObject({ id, completed: expect.any(String), failed: null })
    await expectError(alice.post(`/api/music/jobs/${id}/retry`), 409, 'Job has not failed.')
  })

  test("another user's job, or none: 404", async () => {
    const { client: bob } = await signUp(t)
    const res = await postForm(alice, '/api/music/jobs/create', musicForm({ video_url: `${media.url}/files/never.mp3`, title: 'Never', artist: 'A', album: 'B' }))
    const { id } = (await res.json()) as { id: string }
    await waitForJob(alice, id)
    await expectError(bob.post(`/api/music/jobs/${id}/retry`), 404, 'Job not found.')
    await expectError(alice.post(`/api/music/jobs/${crypto.randomUUID()}/retry`), 404, 'Job not found.')
  })
})
