import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestAppBeside, type Client, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../tests/support/media.ts'
import { filesUnder, musicForm, postForm, waitForJob } from '../../tests/support/music.ts'
import { dataDirOn, mountTmpfs, type Tmpfs } from '../../tests/support/tmpfs.ts'
import { quickUser } from '../../tests/support/youtube.ts'
import { DISK_FULL_DETAIL } from '../lib/faults.ts'

// Issue 29, 3: a data folder on a 2 MB tmpfs that fills up. An upload answers 507 with a
// sentence (its part file removed), a job that meets the full disk fails with `disk_full`,
// and the admin status shows the free space with a warning.

const mounted = mountTmpfs('2m')
const skip = typeof mounted === 'string'
if (skip) console.warn(`disk-full tests skipped: ${mounted}`)

let fs: Tmpfs
let t: TestApp & { alice: Client; server: MediaServer }
let scratch: string
beforeAll(async () => {
  if (skip) return
  fs = mounted as Tmpfs
  scratch = mkdtempSync(join(tmpdir(), 'tunefeed-disk-'))
  const media = await startMediaServer()
  t = await startTestAppBeside(media, () => ({ DATA_DIR: dataDirOn(fs) }))
}, 60_000)
afterAll(async () => {
  if (skip) return
  await t?.close()
  fs.unmount()
  rmSync(scratch, { recursive: true, force: true })
})

describe.skipIf(skip)('a full disk (DATA_DIR on a 2 MB tmpfs)', () => {
  test('a 5 MB upload answers 507 with a sentence and leaves no part file', async () => {
    const big = join(scratch, 'big.mp3')
    writeFileSync(big, Buffer.alloc(5 * 1024 * 1024, 0xff))
    const form = musicForm({ title: 'Big', artist: 'A', album: 'B' }, { path: big, type: 'audio/mpeg' })
    await expectError(postForm(t.alice, '/api/music/jobs/create', form), 507, DISK_FULL_DETAIL)
    expect(filesUnder(join(t.ctx.env.DATA_DIR, 'music')).filter((f) => f.endsWith('.part'))).toEqual([])
    // the space the part file took is back
    expect(fs.free()).toBeGreaterThan(1024 * 1024)
  })

  test('a job whose download meets the full disk fails with the full-disk sentence (errorKind internal)', async () => {
    const tone = join(scratch, 'tone.mp3')
    await makeTone(tone, 40)
    t.server.addFile('tone.mp3', tone)
    fs.fill(200 * 1024)
    try {
      const res = await postForm(t.alice, '/api/music/jobs/create', musicForm({ video_url: `${t.server.url}/files/tone.mp3`, title: 'Tone', artist: 'A', album: 'B' }))
      expect(res.status).toBe(201)
      const job = await waitForJob(t.alice, ((await res.json()) as { id: string }).id, 60_000)
      expect(job.failed).not.toBeNull()
      // the contract's kinds are fixed: `internal`, told by the disk's own sentence
      expect(job.errorKind).toBe('internal')
      expect(job.error).toBe(DISK_FULL_DETAIL)
    } finally {
      fs.unfill()
    }
  }, 90_000)

  test('the admin status shows the free space, and a warning when it is low', async () => {
    const admin = await quickUser(t, { admin: true })
    const status = async () => (await (await admin.client.get('/api/admin/status')).json()).disk
    const roomy = await status()
    expect(roomy).toMatchObject({ path: t.ctx.env.DATA_DIR, low: false, warning: null })
    expect(roomy.totalBytes).toBe(2 * 1024 * 1024)
    expect(roomy.freeBytes).toBeGreaterThan(1024 * 1024)
    fs.fill(20 * 1024)
    try {
      const low = await status()
      expect(low.low).toBe(true)
      expect(low.freeBytes).toBeLessThan(100 * 1024)
      expect(low.warning).toMatch(/^Only \d+ MB of disk space is left/)
    } finally {
      fs.unfill()
    }
  })
})
