import { Hono } from 'hono'
import { requireAdmin } from '../auth/session.ts'
import type { AppContext, AppEnv } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { TooLarge } from '../lib/multipart.ts'
import { cookiesStatus, parseNetscapeCookies, removeCookies, saveCookies } from './cookies.ts'
import { checkYtdlpJob } from './jobs.ts'

/** /api/admin/tools (docs/api.md, Admin): the managed yt-dlp and the cookies handed to it. */
export function toolRoutes(ctx: AppContext) {
  return new Hono<AppEnv>()
    .use(requireAdmin)
    .post('/ytdlp/update', async (c) => {
      if (!ctx.tools.managed.enabled) fail(409, 'The managed yt-dlp is off (YTDLP_PATH is set or YTDLP_UPDATE=off).')
      await ctx.jobs.enqueue(checkYtdlpJob, {}, { jobId: 'tools.checkYtdlp.admin' })
      return c.json({ status: 'checking' }, 202)
    })
    .post('/ytdlp/rollback', async (c) => {
      const build = await ctx.tools.managed.rollback()
      if (!build) fail(409, 'No previous version.')
      return c.json({ version: build.version }, 200)
    })
    .put('/cookies', async (c) => {
      // at most 1 MB: counted while it streams (src/app.ts)
      const text = await c.req.text().catch((err: unknown) => {
        if (err instanceof TooLarge) fail(413, 'Request body is too large.')
        throw err
      })
      const parsed = parseNetscapeCookies(text)
      if (!parsed) fail(422, 'Not a Netscape cookies file.')
      await saveCookies(ctx.db, ctx.cipher, text, parsed)
      const { count, domains } = await cookiesStatus(ctx.db)
      return c.json({ set: true, count, domains }, 200)
    })
    .delete('/cookies', async (c) => {
      await removeCookies(ctx.db)
      return c.body(null, 204)
    })
}
