import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import type { Client, TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import type { TestMedia } from '../../tests/support/media.ts'
import { filesUnder, listJobs, musicForm, postForm, startMusicTestApp, userIdOf, waitForJob } from '../../tests/support/music.ts'
import { jobDir } from './files.ts'
import type { MusicJob } from './schema.ts'

// PATCH /jobs/{id} (issue 25, finding 8): a refused edit leaves the job as it was, its file where
// the job says it is, and later edits work. A NUL in a tag is refused before anything (422 naming
// the field); a database write that fails (a trigger refusing it, on PGlite and PostgreSQL) puts
// the renamed files back.
setDefaultTimeout(60_000)

let t: TestApp
let files: TestMedia
let alice: Client
let job: MusicJob
let dir: string

beforeAll(async () => {
  ;({ files, alice } = t = await startMusicTestApp())
  const res = await postForm(alice, '/api/music/jobs/create', musicForm({ title: 'First', artist: 'Singer', album: 'Album' }, { path: files.mp3 }))
  expect(res.status).toBe(201)
  const { id } = (await res.json()) as { id: string }
  job = await waitForJob(alice, id)
  expect(job.completed).toBeTruthy()
  dir = jobDir(t.ctx.env.DATA_DIR, await userIdOf(t, alice), id)
}, 60_000)
afterAll(() => t?.close())

const patch = (json: unknown) => alice.request(`/api/music/jobs/${job.id}`, { method: 'PATCH', json })
const current = async () => (await listJobs(alice)).jobs.find((j) => j.id === job.id)!

async function expectUnchanged() {
  expect(await current()).toEqual(job)
  const download = await alice.request(job.downloadUrl!)
  expect(download.status).toBe(200)
  expect(download.headers.get('content-disposition')).toContain('Singer - First.mp3')
  // nothing staged or set aside is left behind
  expect(filesUnder(dir).filter((f) => f !== 'upload.mp3')).toEqual(['output/Singer - First.mp3'])
}

describe('PATCH /api/music/jobs/{id} leaves the job as it was when a step fails', () => {
  test('control characters in a tag: 422 naming the field, nothing renamed', async () => {
    for (const field of ['title', 'artist', 'album', 'grouping']) {
      await expectError(patch({ [field]: `a\u0000b` }), 422, new RegExp(`^${field}: Must not contain control characters`))
      await expectError(patch({ [field]: `a\u001bb` }), 422, new RegExp(`^${field}: `))
    }
    await expectUnchanged()
  })

  test('a database write that fails: the files are put back, and the next edit works', async () => {
    await t.ctx.db.execute(sql`create or replace function tunefeed_test_refuse() returns trigger language plpgsql as $$
      begin if new.title = 'Refused' then raise exception 'refused by the test'; end if; return new; end $$`)
    await t.ctx.db.execute(sql`create trigger tunefeed_test_refuse before update on music_jobs for each row execute function tunefeed_test_refuse()`)
    try {
      const res = await patch({ title: 'Refused', artist: 'Someone Else' })
      expect(res.status).toBe(500)
      await expectUnchanged()
    } finally {
      await t.ctx.db.execute(sql`drop trigger tunefeed_test_refuse on music_jobs`)
    }
    const res = await patch({ title: 'Second' })
    expect(res.status).toBe(200)
    const edited = (await res.json()) as MusicJob
    expect(edited.downloadFilename).toBe('Singer - Second.mp3')
    expect((await alice.request(edited.downloadUrl!)).status).toBe(200)
    expect(filesUnder(dir).filter((f) => f !== 'upload.mp3')).toEqual(['output/Singer - Second.mp3'])
  })
})
