import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { startTestS3, type TestS3 } from '../../../tests/support/s3.ts'
import { musicForm, postForm, startMusicTestApp, userIdOf, waitForJob, type MusicTestApp } from '../../../tests/support/music.ts'
import { parseEnv } from '../../env.ts'
import { createStorage } from '../../storage/index.ts'
import { runCommand } from './index.ts'

/**
 * `storage copy --to s3` moves a local library into the bucket (bytes checked, run again:
 * nothing copied twice) and the app serves it once STORAGE names the bucket;
 * `storage check` prints `missing` / `stray` lines and exits 1, else 0.
 */
setDefaultTimeout(90_000)

let s3: TestS3
let t: MusicTestApp

beforeAll(async () => {
  ;[s3, t] = await Promise.all([startTestS3(), startMusicTestApp()])
}, 240_000)
afterAll(async () => {
  await t?.close()
  await s3?.close()
})

async function run(argv: string[], storage: 'local' | 's3') {
  const lines: string[] = []
  const env = parseEnv({ ...process.env, DATA_DIR: t.ctx.env.DATA_DIR, LOG_LEVEL: 'silent', ...s3.env({ STORAGE: storage, S3_PREFIX: 'lib/' }) })
  const code = await runCommand(argv, { out: (l) => lines.push(l), err: (l) => lines.push(l) }, env, t.ctx)
  return { code, lines }
}

describe('storage copy and check', () => {
  test('a local library copied to s3, checked, served after the switch; a stray and a missing key are found', async () => {
    const res = await postForm(
      t.alice,
      '/api/music/jobs/create',
      musicForm({ title: 'Moved', artist: 'A', album: 'B', artwork_url: `data:image/jpeg;base64,${readFileSync(t.files.jpg).toString('base64')}` }, { path: t.files.wav }),
    )
    const { id } = (await res.json()) as { id: string }
    const job = await waitForJob(t.alice, id)
    const user = await userIdOf(t, t.alice)
    const local = await (await t.alice.request(job.downloadUrl!)).arrayBuffer()

    expect((await run(['storage', 'check'], 'local')).code).toBe(0)
    // the bucket is empty: three files missing
    const before = await run(['storage', 'check'], 's3')
    expect(before.code).toBe(1)
    expect(before.lines.filter((l) => l.startsWith('missing '))).toEqual([
      `missing music/${user}/${id}/artwork.jpg`,
      `missing music/${user}/${id}/output/A - Moved.mp3`,
      `missing music/${user}/${id}/upload.wav`,
    ])

    const copy = await run(['storage', 'copy', '--to', 's3'], 'local')
    expect(copy.code).toBe(0)
    expect(copy.lines.some((l) => /^\[3\/3\] 3 copied, /.test(l))).toBe(true)
    // run again: nothing copied twice
    const again = await run(['storage', 'copy', '--to', 's3'], 'local')
    expect(again.code).toBe(0)
    expect(again.lines.at(-1)).toMatch(/3 files in s3, 0 copied now/)
    expect((await run(['storage', 'check'], 's3')).code).toBe(0)
    expect(s3.badSignatures).toBe(0)

    // the switch: the same app on the bucket serves the same bytes
    const localStorage = t.ctx.storage
    t.ctx.storage = createStorage(parseEnv({ DATA_DIR: t.ctx.env.DATA_DIR, ...s3.env({ S3_PREFIX: 'lib/' }) }))
    try {
      const served = await t.alice.request(job.downloadUrl!, { headers: { range: 'bytes=0-' } })
      expect(served.status).toBe(206)
      expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(local))).toBe(true)
      // a stray object and a missing one
      await t.ctx.storage.store.put('music/nobody/nothing/output/x.mp3', new Uint8Array(3))
      await t.ctx.storage.store.delete(`music/${user}/${id}/artwork.jpg`)
      const diff = await run(['storage', 'check'], 's3')
      expect(diff.code).toBe(1)
      expect(diff.lines).toContain('stray music/nobody/nothing/output/x.mp3')
      expect(diff.lines).toContain(`missing music/${user}/${id}/artwork.jpg`)
    } finally {
      t.ctx.storage = localStorage
    }
    expect((await run(['storage', 'copy', '--to', 'sideways'], 'local')).code).toBe(2)
  })
})
