import { Hono } from 'hono'
import { currentUser, requireUser } from '../../auth/session.ts'
import type { AppContext, AppEnv } from '../../context.ts'
import { valid } from '../../lib/validate.ts'
import { idParam } from '../../lib/fields.ts'
import { getDearrowMode, saveDearrowMode } from './dearrow-settings.ts'
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
}
