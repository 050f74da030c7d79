import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { startTestS3, type TestS3 } from '../../tests/support/s3.ts'
import { listJobs, musicForm, postForm, startMusicTestApp, userIdOf, waitForJob, type MusicTestApp } from '../../tests/support/music.ts'
import { jobDir } from '../music/files.ts'
import { signUpAdmin } from '../../tests/support/youtube.ts'
import { S3Store } from './s3.ts'

/**
 * STORAGE=s3 for music jobs against the test store (s3rver behind a SigV4
 * check): the files are stored before the job is finished, served from the
 * bucket with ranges, HEAD and 416, 503 while the store is down, presigned
 * with S3_PRESIGN=on, and removed with the job.
 */
setDefaultTimeout(60_000)

let s3: TestS3
let t: MusicTestApp
let bucket: S3Store
const PREFIX = 'music-test/'

beforeAll(async () => {
  s3 = await startTestS3()
  t = await startMusicTestApp(s3.env({ S3_PREFIX: PREFIX }))
  bucket = new S3Store({ endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, prefix: PREFIX, virtualHostedStyle: false })
}, 90_000)
afterAll(async () => {
  await t?.close()
  await s3?.close()
})

async function keysOf(prefix: string): Promise<string[]> {
  const keys: string[] = []
  for await (const o of bucket.list(prefix)) keys.push(o.key)
  return keys.sort()
}

async function createJob(title: string) {
  const { alice, files } = t
  const res = await postForm(
    alice,
    '/api/music/jobs/create',
    musicForm({ title, artist: 'A', album: 'B', artwork_url: `data:image/jpeg;base64,${readFileSync(files.jpg).toString('base64')}` }, { path: files.wav }),
  )
  expect(res.status).toBe(201)
  return ((await res.json()) as { id: string }).id
}

describe('music jobs with STORAGE=s3', () => {
  test('a finished job is in the bucket, not on disk, and served with ranges, HEAD and 416', async () => {
    const id = await createJob('Stored')
    const job = await waitForJob(t.alice, id)
    expect(job.completed).not.toBeNull()
    const user = await userIdOf(t, t.alice)
    expect(await keysOf(`music/${user}/${id}/`)).toEqual([`music/${user}/${id}/artwork.jpg`, `music/${user}/${id}/output/A - Stored.mp3`, `music/${user}/${id}/upload.wav`])
    // the job folder held passing work only
    expect(existsSync(jobDir(t.ctx.env.DATA_DIR, user, id))).toBe(false)

    const stored = new Uint8Array(await new Response((await bucket.get(`music/${user}/${id}/output/A - Stored.mp3`))!.body).arrayBuffer())
    const whole = await t.alice.request(job.downloadUrl!)
    expect(whole.status).toBe(200)
    expect(whole.headers.get('content-type')).toBe('audio/mpeg')
    expect(whole.headers.get('accept-ranges')).toBe('bytes')
    const bytes = new Uint8Array(await whole.arrayBuffer())
    expect(bytes.length).toBe(stored.length)
    expect(Buffer.from(bytes).equals(Buffer.from(stored))).toBe(true)

    const part = await t.alice.request(job.downloadUrl!, { headers: { range: 'bytes=100-199' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${stored.length}`)
    expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(stored.subarray(100, 200)))).toBe(true)
    const tail = await t.alice.request(job.downloadUrl!, { headers: { range: 'bytes=-10' } })
    expect(tail.status).toBe(206)
    expect((await tail.arrayBuffer()).byteLength).toBe(10)

    const head = await t.alice.request(job.downloadUrl!, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(stored.length))
    expect((await head.arrayBuffer()).byteLength).toBe(0)

    const beyond = await t.alice.request(job.downloadUrl!, { headers: { range: `bytes=${stored.length}-` } })
    expect(beyond.status).toBe(416)
    expect(beyond.headers.get('content-range')).toBe(`bytes */${stored.length}`)

    for (const route of ['artwork', 'upload']) {
      const res = await t.alice.request(`/api/music/jobs/${id}/${route}`)
      expect(res.status).toBe(200)
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0)
    }
    expect(Buffer.from(await (await t.alice.request(`/api/music/jobs/${id}/artwork`)).arrayBuffer()).equals(readFileSync(t.files.jpg))).toBe(true)
    // every request the app made was signed right
    expect(s3.badSignatures).toBe(0)
  })

  test('S3_PRESIGN=on: a GET answers 302 to a URL valid at most 300 s that reads the file; HEAD passes through', async () => {
    const id = await createJob('Presigned')
    const job = await waitForJob(t.alice, id)
    t.ctx.env.S3_PRESIGN = 'on'
    try {
      const res = await t.alice.request(job.downloadUrl!)
      expect(res.status).toBe(302)
      const url = new URL(res.headers.get('location')!)
      expect(url.origin).toBe(s3.endpoint)
      expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(300)
      const direct = await fetch(url, { headers: { range: 'bytes=0-9' } })
      expect(direct.status).toBe(206)
      expect((await direct.arrayBuffer()).byteLength).toBe(10)
      expect((await t.alice.request(job.downloadUrl!, { method: 'HEAD' })).status).toBe(200)
      // another user's job is 404, never a redirect
      const other = await t.alice.request(`/api/music/jobs/00000000-0000-4000-8000-000000000000/download`)
      expect(other.status).toBe(404)
    } finally {
      t.ctx.env.S3_PRESIGN = 'off'
    }
  })

  test('the store stopped: the file route answers 503 with Retry-After at once; back up, 200', async () => {
    const id = await createJob('Outage')
    const job = await waitForJob(t.alice, id)
    // served once just before (the store's HEAD answer is then kept a few seconds)
    expect((await t.alice.request(job.downloadUrl!, { headers: { range: 'bytes=0-9' } })).status).toBe(206)
    await s3.stop()
    try {
      const started = Date.now()
      const ranged = await t.alice.request(job.downloadUrl!, { headers: { range: 'bytes=0-9' } })
      expect(ranged.status).toBe(503)
      const res = await t.alice.request(job.downloadUrl!)
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(await res.json()).toEqual({ detail: 'Storage is unavailable.' })
      expect(Date.now() - started).toBeLessThan(30_000)
      // the admin status says so (after the failed call), without a key
      const { client: admin } = await signUpAdmin(t)
      const status = await admin.request('/api/admin/status')
      expect(status.status).toBe(200)
      const text = await status.text()
      expect(text).not.toContain(s3.secretAccessKey)
      const { storage } = JSON.parse(text) as { storage: Record<string, unknown> }
      expect(storage).toMatchObject({ kind: 's3', endpoint: s3.endpoint, bucket: s3.bucket, ok: false })
      expect(storage.lastError).toContain('did not answer')
      expect(typeof storage.checkedAt).toBe('string')
    } finally {
      await s3.start()
    }
    expect((await t.alice.request(job.downloadUrl!)).status).toBe(200)
  })

  test('the store stopped during a job: the job waits, is not finished meanwhile, and finishes once it is back', async () => {
    await s3.stop()
    let id: string
    try {
      id = await createJob('Waits')
      const deadline = Date.now() + 8000
      while (Date.now() < deadline) {
        const row = (await listJobs(t.alice)).jobs.find((j) => j.id === id)
        expect(row?.completed ?? null).toBeNull()
        expect(row?.failed ?? null).toBeNull()
        await Bun.sleep(500)
      }
    } finally {
      await s3.start()
    }
    const job = await waitForJob(t.alice, id!, 60_000)
    expect(job.completed).not.toBeNull()
    expect((await t.alice.request(job.downloadUrl!)).status).toBe(200)
  })

  test('deleting a job removes its objects', async () => {
    const id = await createJob('Gone')
    await waitForJob(t.alice, id)
    const user = await userIdOf(t, t.alice)
    expect((await keysOf(`music/${user}/${id}/`)).length).toBe(3)
    expect((await t.alice.delete(`/api/music/jobs/${id}/delete`)).status).toBe(200)
    expect(await keysOf(`music/${user}/${id}/`)).toEqual([])
    expect((await t.alice.request(`/api/music/jobs/${id}/download`)).status).toBe(404)
  })
})
