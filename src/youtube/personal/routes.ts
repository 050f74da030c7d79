import { Hono } from 'hono'
import { currentUser, requireUser } from '../../auth/session.ts'
import type { AppContext, AppEnv } from '../../context.ts'
import { valid } from '../../lib/validate.ts'
import { idParam } from '../../lib/fields.ts'
import { fail } from '../../lib/errors.ts'
import { videoExists } from '../queries/videos.ts'
import { brandings } from './dearrow.ts'
import { getDearrowMode, saveDearrowMode } from './dearrow-settings.ts'
import { dearrowThumbnail } from './dearrow-thumbs.ts'
import { createGroup, deleteGroup, listGroups, updateGroup } from './groups.ts'
import { getMutedWords, mutedCounts, saveMutedWords } from './mutes.ts'
import { dearrowBody, filtersBody, groupBody, groupPatch } from './schema.ts'

// Groups, muted words and DeArrow settings (docs/api.md, Video area: the feed, sharper).

export function personalRoutes(ctx: AppContext) {
  const { db } = ctx
  /** The words with how many videos of the feed each hides (the settings show it). */
  const filtersJson = async (userId: string, words: string[]) => {
    const counts = await mutedCounts(db, userId, words)
    return { mutedWords: words, hidden: words.map((word, i) => ({ word, videos: counts[i] ?? 0 })) }
  }
  return new Hono<AppEnv>()
    .use(requireUser)
    .get('/groups', async (c) => c.json({ groups: await listGroups(db, currentUser(c).id) }, 200))
    .post('/groups', valid('json', groupBody), async (c) => {
      const { name, channelIds } = c.req.valid('json')
      return c.json(await createGroup(db, currentUser(c).id, name, channelIds), 201)
    })
    .patch('/groups/:id', valid('param', idParam), valid('json', groupPatch), async (c) =>
      c.json(await updateGroup(db, currentUser(c).id, c.req.param('id'), c.req.valid('json')), 200),
    )
    .delete('/groups/:id', valid('param', idParam), async (c) => {
      await deleteGroup(db, currentUser(c).id, c.req.param('id'))
      return c.body(null, 204)
    })
    .get('/filters', async (c) => {
      const userId = currentUser(c).id
      return c.json(await filtersJson(userId, await getMutedWords(db, userId)), 200)
    })
    .put('/filters', valid('json', filtersBody), async (c) => {
      const userId = currentUser(c).id
      return c.json(await filtersJson(userId, await saveMutedWords(db, userId, c.req.valid('json').mutedWords)), 200)
    })
    .get('/dearrow', async (c) => c.json({ mode: await getDearrowMode(db, currentUser(c).id) }, 200))
    .put('/dearrow', valid('json', dearrowBody), async (c) => c.json({ mode: await saveDearrowMode(db, currentUser(c).id, c.req.valid('json').mode) }, 200))
    // the thumbnail DeArrow has for a video, fetched by the server: only for users who chose
    // thumbnails, and only at the time DeArrow's vote chose (never a time a request names)
    .get('/videos/:id/dearrow-thumbnail', valid('param', idParam), async (c) => {
      const id = c.req.param('id')
      const none: () => never = () => fail(404, 'No DeArrow thumbnail for this video.')
      if (!/^[\w-]{11}$/.test(id) || !(await videoExists(db, id)) || (await getDearrowMode(db, currentUser(c).id)) !== 'titles_thumbnails') none()
      const time = (await brandings(ctx, [id])).get(id)?.thumbnailTime
      if (time == null) none()
      const thumb = await dearrowThumbnail(ctx, id, time)
      if (!thumb) none()
      return c.body(thumb.body.buffer as ArrayBuffer, 200, { 'content-type': thumb.type, 'cache-control': 'private, max-age=86400' })
    })
}
