import { desc, isNotNull } from 'drizzle-orm'
import { Hono, type MiddlewareHandler } from 'hono'
import { z } from 'zod'
import { email } from '../auth/schema.ts'
import { findUserByEmail } from '../auth/queries.ts'
import { requireSession } from '../auth/bearer.ts'
import { requireAdmin } from '../auth/session.ts'
import type { AppContext, AppEnv } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { isOwnOrigin } from '../lib/origin.ts'
import { valid } from '../lib/validate.ts'
import {
  channelIdSchema,
  dateAfterSchema,
  enqueueChannelRefresh,
  refreshAllChannelsJob,
  refreshCategoriesJob,
  syncSubscriptionsJob,
} from '../youtube/jobs.ts'
import { getUserChannel } from '../youtube/queries/subscriptions.ts'
import { quotaStatus } from '../youtube/quota.ts'
import { youtubeChannels } from '../youtube/tables.ts'
import { manageRoutes } from './manage-routes.ts'
import { TooLarge } from '../lib/multipart.ts'
import { cookiesStatus, parseNetscapeCookies, removeCookies, saveCookies } from '../tools/cookies.ts'
import { canaryJob, checkYtdlpJob } from '../tools/jobs.ts'

const subscriptionsQuery = z.object({ email: email.optional() })
const channelVideosQuery = z.object({ channel_id: channelIdSchema.optional(), date_after: dateAfterSchema.optional() })

/**
 * The spec's admin actions stay GET (and also take POST), so a GET must not be
 * something another site can trigger: a link or image on another page would
 * spend the YouTube quota with the admin's cookie (SameSite=Lax lets top-level
 * GETs through). Browsers say where a request came from in Sec-Fetch-Site.
 */
const refuseCrossSiteGet: MiddlewareHandler<AppEnv> = async (c, next) => {
  const site = c.req.header('sec-fetch-site')
  if ((c.req.method === 'GET' || c.req.method === 'HEAD') && (site === 'cross-site' || site === 'same-site')) {
    fail(403, 'Cross-site request refused.')
  }
  await next()
}

/**
 * Older browsers send no Sec-Fetch-Site: a GET action (it queues work) then has
 * to show it comes from this site with its Origin or Referer, or be sent as a
 * POST (which the app's origin check covers). An API token carries no ambient
 * cookie, so a Bearer request needs neither.
 */
function sameOriginGetAction(trustProxy: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const read = c.req.method === 'GET' || c.req.method === 'HEAD'
    if (read && !c.get('apiTokenId') && !c.req.header('sec-fetch-site')) {
      const origin = c.req.header('origin')
      const from = origin && origin !== 'null' ? origin : c.req.header('referer')
      if (!from || !isOwnOrigin(from, c.req, trustProxy)) {
        fail(403, 'Cross-site request refused: send this action as a POST, or from a page of this site.')
      }
    }
    await next()
  }
}

const ACTION: ['GET', 'POST'] = ['GET', 'POST']

/**
 * Admin-only routes: the admin page's (manage-routes.ts), the tools, and the
 * spec's refreshes (GET as the spec lists them, and POST; each answers the ids
 * of the jobs it queued).
 */
export function adminRoutes(ctx: AppContext) {
  const { db, env } = ctx
  const sameOrigin = sameOriginGetAction(env.TRUST_PROXY)
  return new Hono<AppEnv>()
    .use(requireAdmin)
    .use(refuseCrossSiteGet)
    .route('/', manageRoutes(ctx))
    // the managed yt-dlp (src/tools/managed.ts) and the cookies handed to it (src/tools/cookies.ts)
    .post('/tools/ytdlp/update', async (c) => {
      if (!ctx.tools.managed.enabled) fail(409, 'The managed yt-dlp is off (YTDLP_PATH is set or YTDLP_UPDATE=off).')
      // no fixed job id: one still finishing would swallow this request; checks at once share one run (managed.update)
      await ctx.jobs.enqueue(checkYtdlpJob, {})
      return c.json({ status: 'checking' }, 202)
    })
    .post('/tools/canary', async (c) => {
      // the canary now (src/tools/canary.ts); its result shows in GET /status as tools.canary
      await ctx.jobs.enqueue(canaryJob, { trigger: 'admin' }, { jobId: 'tools.canary.admin' })
      return c.json({ status: 'checking' }, 202)
    })
    // a rollback also marks the newer build rejected (kept out until a newer one): a session, not an API token
    .post('/tools/ytdlp/rollback', requireSession, async (c) => {
      const build = await ctx.tools.managed.rollback()
      if (!build) fail(409, 'No previous version.')
      return c.json({ version: build.version }, 200)
    })
    // the cookies act for an account at a site: replacing or removing them needs a session, not an API token
    .put('/tools/cookies', requireSession, async (c) => {
      // at most 1 MB: counted while it streams (src/app.ts)
      const text = await c.req.text().catch((err: unknown) => {
        if (err instanceof TooLarge) fail(413, 'Request body is too large.')
        throw err
      })
      const parsed = parseNetscapeCookies(text)
      if (!parsed) fail(422, 'Not a Netscape cookies file.')
      await saveCookies(db, ctx.cipher, text, parsed)
      const { count, domains } = await cookiesStatus(db)
      return c.json({ set: true, count, domains }, 200)
    })
    .delete('/tools/cookies', requireSession, async (c) => {
      await removeCookies(db)
      return c.body(null, 204)
    })
    .on(ACTION, '/cron/run', sameOrigin, async (c) => {
      // every recurring job, now (loaded lazily: the registry pulls in every feature's jobs)
      const { jobModules } = await import('../jobs/registry.ts')
      const jobIds: string[] = []
      for (const s of jobModules.flatMap((m) => m.schedules ?? [])) jobIds.push(await ctx.jobs.enqueue(s.job, s.payload))
      return c.json({ jobIds }, 200)
    })
    .on(ACTION, '/youtube/update_subscriptions', sameOrigin, valid('query', subscriptionsQuery), async (c) => {
      const { email } = c.req.valid('query')
      if (!email) return c.json({ jobIds: [await ctx.jobs.enqueue(syncSubscriptionsJob, {})] }, 200)
      const user = await findUserByEmail(db, email)
      if (!user) fail(404, 'User not found.')
      if (!(await getUserChannel(db, user.id))) fail(404, 'Youtube Channel not found.')
      const id = await ctx.jobs.enqueue(syncSubscriptionsJob, { userId: user.id }, { jobId: `youtube.syncSubscriptions.${user.id}` })
      return c.json({ jobIds: [id] }, 200)
    })
    .on(ACTION, '/youtube/update_channel_videos', sameOrigin, valid('query', channelVideosQuery), async (c) => {
      const { channel_id, date_after } = c.req.valid('query')
      const id = channel_id
        ? await enqueueChannelRefresh(ctx, channel_id, date_after)
        : await ctx.jobs.enqueue(refreshAllChannelsJob, date_after ? { dateAfter: date_after } : {})
      return c.json({ jobIds: [id] }, 200)
    })
    .on(ACTION, '/youtube/update_video_categories', sameOrigin, async (c) => {
      return c.json({ jobIds: [await ctx.jobs.enqueue(refreshCategoriesJob, {})] }, 200)
    })
    .get('/youtube/quota', async (c) => {
      // today's units and, when work stopped, why: the admin's view of the quota ledger
      const failing = await db
        .select({ id: youtubeChannels.id, title: youtubeChannels.title, error: youtubeChannels.refreshError })
        .from(youtubeChannels)
        .where(isNotNull(youtubeChannels.refreshError))
        .orderBy(desc(youtubeChannels.updatedAt))
        .limit(20)
      return c.json({ ...(await quotaStatus(db, env.YOUTUBE_DAILY_QUOTA)), failingChannels: failing }, 200)
    })
}
