import { mkdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { AppContext, AppEnv } from '../context.ts'
import { currentUser, requireUser } from '../auth/session.ts'
import { fail } from '../lib/errors.ts'
import { sendFile, sendStored } from '../lib/send-file.ts'
import { idParam } from '../lib/fields.ts'
import { valid } from '../lib/validate.ts'
import { topics } from '../ws/hub.ts'
import { listenRoute } from '../ws/listen.ts'
import { resolveArtwork } from './artwork.ts'
import { LookupService } from './lookup.ts'
import { MusicBrainz } from './musicbrainz.ts'
import { createMusicJob, readUpload } from './create.ts'
import { refusePrivateList, refuseUnsafeUrl } from './new-job.ts'
import { inside, jobDir, mimeOf } from './files.ts'
import { jobKey, removeJobFiles } from './stored.ts'
import { CallLimit } from './limits.ts'
import { deleteMusicJob, getOwnMusicJob, listMusicJobs, toMusicJob } from './queries.ts'
import { retryMusicJob } from './jobs.ts'
import { artworkUrlQuery, musicbrainzQuery, musicJobListQuery, musicJobPatch, videoUrlQuery } from './schema.ts'
import { editJobTags } from './tag-edit.ts'
import { setJobLyrics } from './lyrics.ts'
import { readTags } from './tags.ts'
import { answerPaceWait, limitLookup, runLookup } from '../tools/lookup.ts'
import { isPrivateListInfo, PRIVATE_LIST_REFUSAL } from '../tools/private-lists.ts'
import { groupingOf, videoInfo } from '../tools/ytdlp.ts'


export function musicRoutes(ctx: AppContext) {
  const { db, env } = ctx
  const lookups = new LookupService(ctx)
  const musicbrainz = new MusicBrainz(env, ctx.allow)
  const tagReads = new CallLimit(env.TAGS_CONCURRENCY, 2)

  /** The signed-in user's job, or 404 (another user's job does not exist for them). */
  const ownJob = async (userId: string, id: string) => {
    const row = await getOwnMusicJob(db, userId, id)
    if (!row) fail(404, 'Job not found.')
    return row
  }

  return new Hono<AppEnv>()
    .use(requireUser)
    .post('/jobs/create', async (c) => {
      return c.json(await createMusicJob(ctx, currentUser(c), c.req.raw, lookups), 201)
    })
    .get('/jobs/list', valid('query', musicJobListQuery), async (c) => {
      const { page, per_page } = c.req.valid('query')
      const { rows, totalPages } = await listMusicJobs(db, currentUser(c).id, page, per_page)
      return c.json({ jobs: rows.map(toMusicJob), totalPages }, 200)
    })
    .get('/jobs/listen', listenRoute(ctx, (user) => topics.musicJobs(user.id)))
    .delete('/jobs/:id/delete', valid('param', idParam), async (c) => {
      const row = await ownJob(currentUser(c).id, c.req.param('id'))
      // the row goes first so a running job cannot record anything after this
      await deleteMusicJob(db, row.id)
      await ctx.jobs.cancel(row.id)
      await removeJobFiles(ctx, row)
      return c.json({ id: row.id }, 200)
    })
    .post('/jobs/:id/retry', valid('param', idParam), async (c) => {
      const row = await ownJob(currentUser(c).id, c.req.param('id'))
      await retryMusicJob(ctx, row)
      return c.json(toMusicJob((await getOwnMusicJob(db, row.userId, row.id))!), 200)
    })
    .get('/jobs/:id/download', valid('param', idParam), async (c) => {
      const row = await ownJob(currentUser(c).id, c.req.param('id'))
      if (!row.outputFile) fail(404, 'File not found.')
      return sendStored(c.req.raw, ctx.storage.store, jobKey(row.userId, row.id, row.outputFile), {
        filename: row.outputFile.split('/').pop()!,
        type: mimeOf(row.outputFile),
        presign: env.S3_PRESIGN === 'on',
      })
    })
    .get('/jobs/:id/tracks/:n/download', async (c) => {
      const row = await ownJob(currentUser(c).id, c.req.param('id'))
      const track = row.tracks.find((t) => String(t.trackNumber) === c.req.param('n'))
      if (!track) fail(404, 'File not found.')
      return sendStored(c.req.raw, ctx.storage.store, jobKey(row.userId, row.id, track.file), {
        filename: track.file.split('/').pop()!,
        type: 'audio/mpeg',
        presign: env.S3_PRESIGN === 'on',
      })
    })
    .patch('/jobs/:id', valid('json', musicJobPatch), async (c) => {
      const row = await ownJob(currentUser(c).id, c.req.param('id'))
      // lyrics live in the database only (decision 266): an edit of them alone rewrites no file
      const { lyrics, ...tags } = c.req.valid('json')
      let next = lyrics === undefined || Object.keys(tags).length ? await editJobTags(ctx, row, tags) : row
      if (lyrics !== undefined) next = await setJobLyrics(ctx, next, lyrics)
      return c.json(toMusicJob(next), 200)
    })
    // the kept lyrics' text, for the edit dialog (the job object says only whether there are any: decision 267)
    .get('/jobs/:id/lyrics', valid('param', idParam), async (c) => {
      const row = await ownJob(currentUser(c).id, c.req.param('id'))
      return c.json({ text: row.lyrics ?? '' }, 200)
    })
    .get('/jobs/:id/upload', valid('param', idParam), async (c) => {
      const row = await ownJob(currentUser(c).id, c.req.param('id'))
      if (!row.uploadFile) fail(404, 'File not found.')
      // an upload still waiting to be stored (the store was down) is passing work on this machine's disk
      const local = await stat(inside(jobDir(env.DATA_DIR, row.userId, row.id), row.uploadFile)).catch(() => null)
      const opts = { filename: row.originalFilename || row.uploadFile, type: mimeOf(row.uploadFile) }
      if (local?.isFile() && !row.completed) return sendFile(c.req.raw, inside(jobDir(env.DATA_DIR, row.userId, row.id), row.uploadFile), opts)
      return sendStored(c.req.raw, ctx.storage.store, jobKey(row.userId, row.id, row.uploadFile), { ...opts, presign: env.S3_PRESIGN === 'on' })
    })
    .get('/jobs/:id/artwork', valid('param', idParam), async (c) => {
      const row = await ownJob(currentUser(c).id, c.req.param('id'))
      if (!row.artworkFile) fail(404, 'File not found.')
      if (!row.completed) return sendFile(c.req.raw, inside(jobDir(env.DATA_DIR, row.userId, row.id), row.artworkFile), { filename: row.artworkFile, type: mimeOf(row.artworkFile) })
      return sendStored(c.req.raw, ctx.storage.store, jobKey(row.userId, row.id, row.artworkFile), {
        filename: row.artworkFile,
        type: mimeOf(row.artworkFile),
        presign: env.S3_PRESIGN === 'on',
      })
    })
    .get('/grouping', valid('query', videoUrlQuery), async (c) => {
      const { video_url } = c.req.valid('query')
      const user = currentUser(c)
      refusePrivateList('video_url', video_url, user)
      await refuseUnsafeUrl('video_url', video_url, ctx)
      let grouping: string | null = null
      try {
        const info = await runLookup(ctx, user.id, c.req.raw.signal, (cfg, signal) => videoInfo(cfg, video_url, signal), {
          url: video_url,
        })
        // reached through a redirect: shown to an admin only, as the link itself would be
        if (!user.admin && isPrivateListInfo(info)) fail(403, `video_url: ${PRIVATE_LIST_REFUSAL}`)
        grouping = groupingOf(info)
      } catch (err) {
        if (err instanceof HTTPException) throw err
        answerPaceWait(err)
        // unsupported page, refused hop, timeout, client gone: the same answer for all
      }
      if (!grouping) fail(400, 'Unable to get grouping.')
      return c.json({ grouping }, 200)
    })
    .get('/lookup', valid('query', videoUrlQuery), async (c) => {
      const { video_url } = c.req.valid('query')
      refusePrivateList('video_url', video_url, currentUser(c))
      await refuseUnsafeUrl('video_url', video_url, ctx)
      return c.json(await lookups.lookup(currentUser(c), video_url, c.req.raw.signal), 200)
    })
    .get('/musicbrainz', valid('query', musicbrainzQuery), async (c) => {
      const { artist, title } = c.req.valid('query')
      return c.json({ candidates: await musicbrainz.search(currentUser(c).id, artist, title, c.req.raw.signal) }, 200)
    })
    .get('/artwork', valid('query', artworkUrlQuery), async (c) => {
      const { artwork_url } = c.req.valid('query')
      await refuseUnsafeUrl('artwork_url', artwork_url, ctx)
      let resolvedArtworkUrl: string
      try {
        resolvedArtworkUrl = await limitLookup(ctx, currentUser(c).id, c.req.raw.signal, (signal) => resolveArtwork(artwork_url, ctx.allow, signal))
      } catch (err) {
        // no turn in time: the server is busy (503), not the link
        answerPaceWait(err)
        // not a page or image, no cover on it, refused hop, timeout: the same answer for all
        fail(400, 'Unable to get artwork.')
      }
      return c.json({ resolvedArtworkUrl }, 200)
    })
    .post('/tags', async (c) => {
      const release = tagReads.enter(currentUser(c).id)
      const tmp = join(env.DATA_DIR, 'tmp', crypto.randomUUID())
      try {
        await mkdir(tmp, { recursive: true })
        const { file } = await readUpload(c.req.raw, tmp, env.MAX_UPLOAD_BYTES)
        if (!file) fail(422, 'file: Required')
        return c.json(await readTags(file.path), 200)
      } finally {
        release()
        await rm(tmp, { recursive: true, force: true })
      }
    })
}
