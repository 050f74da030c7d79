import { Hono } from 'hono'
import { currentUser, requireUser } from '../../auth/session.ts'
import type { AppContext, AppEnv } from '../../context.ts'
import { valid } from '../../lib/validate.ts'
import { sponsorblockBody } from './schema.ts'
import { getSponsorblock, saveSponsorblock } from './settings.ts'

/** Listening: SponsorBlock settings and segments, audio for listen mode (issue 27, docs/api.md "Listening"). */
export function listenRoutes(ctx: AppContext) {
  const { db } = ctx
  return new Hono<AppEnv>()
    .use(requireUser)
    .get('/sponsorblock', async (c) => c.json({ categories: await getSponsorblock(db, currentUser(c).id) }, 200))
    .put('/sponsorblock', valid('json', sponsorblockBody), async (c) => {
      const categories = await saveSponsorblock(db, currentUser(c).id, c.req.valid('json').categories)
      return c.json({ categories }, 200)
    })
}
