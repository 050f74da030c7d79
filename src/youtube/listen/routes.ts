import { Hono } from 'hono'
import { requireSession } from '../../auth/bearer.ts'
import { currentUser, requireUser } from '../../auth/session.ts'
import type { AppContext, AppEnv } from '../../context.ts'
import { fail } from '../../lib/errors.ts'
import { idParam } from '../../lib/fields.ts'
import { sendStored } from '../../lib/send-file.ts'
import { valid } from '../../lib/validate.ts'
import { requireVideo } from '../queries/videos.ts'
import { podcastBody, sponsorblockBody } from './schema.ts'
import { audioJson, audioKey, getAudio, markPlayed, requestAudio } from './audio.ts'
import { audioWaiters } from './audio-push.ts'
import { episodeStatusRoutes } from './episode-status.ts'
import { rotateSecret } from './podcast-queries.ts'
import { podcastsJson, setPodcast } from './podcasts.ts'
import { queueRecut } from './jobs.ts'
import { videoSegments } from './segments.ts'
import { getSponsorblock, saveSponsorblock } from './settings.ts'

/** Listening: SponsorBlock settings and segments, audio for listen mode (issue 27, docs/api.md "Listening"). */
export function listenRoutes(ctx: AppContext) {
  const { db } = ctx
  return new Hono<AppEnv>()
    .use(requireUser)
    .get('/sponsorblock', async (c) => c.json({ categories: await getSponsorblock(db, currentUser(c).id) }, 200))
    .put('/sponsorblock', valid('json', sponsorblockBody), async (c) => {
      const categories = await saveSponsorblock(db, currentUser(c).id, c.req.valid('json').categories)
      // the podcast episodes are cut again with the new skip categories (debounced: src/youtube/listen/jobs.ts)
      await queueRecut(ctx, currentUser(c).id)
      return c.json({ categories }, 200)
    })
    .put('/channels/:id/podcast', valid('param', idParam), valid('json', podcastBody), async (c) => {
      const { enabled, keepLast } = c.req.valid('json')
      return c.json(await setPodcast(ctx, currentUser(c).id, c.req.param('id'), enabled, keepLast), 200)
    })
    .route('/', episodeStatusRoutes(ctx))
    // the feed addresses carry their secret: a session only (an API token gets 403, so a leaked
    // token cannot carry them away), and no cache keeps the answer
    .get('/podcasts', requireSession, async (c) => {
      c.header('Cache-Control', 'no-store')
      return c.json(await podcastsJson(ctx, currentUser(c).id, c.req.url), 200)
    })
    .post('/podcasts/rotate', requireSession, async (c) => {
      const user = currentUser(c)
      await rotateSecret(db, user.id)
      c.header('Cache-Control', 'no-store')
      return c.json(await podcastsJson(ctx, user.id, c.req.url), 200)
    })
    .get('/videos/:id/segments', valid('param', idParam), async (c) => {
      const id = c.req.param('id')
      await requireVideo(db, id)
      const settings = await getSponsorblock(db, currentUser(c).id)
      return c.json(await videoSegments(ctx, id, settings, c.req.raw.signal), 200)
    })
    .post('/videos/:id/audio', valid('param', idParam), async (c) => {
      const id = c.req.param('id')
      await requireVideo(db, id)
      const userId = currentUser(c).id
      // told over the channel socket when the fetch ends (audio-push.ts); added first, so an end
      // that comes before this answer is not missed
      audioWaiters(ctx).add(id, userId)
      const row = await requestAudio(ctx, id, { owner: userId, work: 'hand' })
      if (row.state !== 'fetching') audioWaiters(ctx).drop(id, userId)
      return c.json(audioJson(row), 200)
    })
    .get('/videos/:id/audio', valid('param', idParam), async (c) => {
      const id = c.req.param('id')
      await requireVideo(db, id)
      const row = await getAudio(db, id)
      if (row?.state !== 'ready' || !row.file) fail(404, 'Audio not ready.')
      let res: Response
      try {
        res = await sendStored(c.req.raw, ctx.storage.store, audioKey(row.file), {
          filename: row.file,
          type: row.contentType ?? 'application/octet-stream',
          inline: true,
          presign: ctx.env.S3_PRESIGN === 'on',
        })
      } catch {
        // removed from the cache meanwhile
        fail(404, 'Audio not ready.')
      }
      if (c.req.method === 'GET') await markPlayed(db, id)
      return res
    })
}
