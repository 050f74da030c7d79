import { and, count, desc, eq, isNull, sql } from 'drizzle-orm'
import { Hono } from 'hono'
import { currentUser, requireUser } from '../../auth/session.ts'
import type { AppContext, AppEnv } from '../../context.ts'
import { fail } from '../../lib/errors.ts'
import { idParam } from '../../lib/fields.ts'
import { valid } from '../../lib/validate.ts'
import { isFollowed } from '../listen/podcast-queries.ts'
import { getVideo, videosByIds } from '../queries/feed.ts'
import { requireVideo } from '../queries/videos.ts'
import { pageQuery } from '../schema.ts'
import { youtubeVideos } from '../tables.ts'
import { serveKept } from './files.ts'
import { retryFailed, syncVideo } from './fetch.ts'
import { applyRules } from './rules.ts'
import { DEFAULT_KEEP, keepRuleBody, keepVideoBody, type KeepRuleJson } from './schema.ts'
import { youtubeKeepRules, youtubeKeeps, youtubeKeptFiles } from './tables.ts'
import { quotaBytes, quotaProblem, usedBytes } from './usage.ts'

const VIDEO_ID = /^[\w-]{11}$/


async function ruleJson(ctx: AppContext, userId: string, channelId: string): Promise<KeepRuleJson> {
  const [r] = await ctx.db.select().from(youtubeKeepRules).where(and(eq(youtubeKeepRules.userId, userId), eq(youtubeKeepRules.channelId, channelId)))
  if (!r) return { ...DEFAULT_KEEP }
  return { enabled: r.enabled, keepLast: r.keepLast, maxHeight: r.maxHeight, deleteWatchedAfterDays: r.deleteWatchedAfterDays, includeShorts: r.includeShorts }
}

/** Keeping videos (issue 33, docs/api.md "Keeping videos"): rules, keeps by hand, the Kept list and the files. */
export function keepRoutes(ctx: AppContext) {
  const { db } = ctx
  return new Hono<AppEnv>()
    .use(requireUser)
    .get('/channels/:id/keep', valid('param', idParam), async (c) => {
      const userId = currentUser(c).id
      const channelId = c.req.param('id')
      if (!(await isFollowed(db, userId, channelId))) fail(404, 'Subscription not found.')
      return c.json(await ruleJson(ctx, userId, channelId), 200)
    })
    .put('/channels/:id/keep', valid('param', idParam), valid('json', keepRuleBody), async (c) => {
      const userId = currentUser(c).id
      const channelId = c.req.param('id')
      if (!(await isFollowed(db, userId, channelId))) fail(404, 'Subscription not found.')
      const body = c.req.valid('json')
      const rule = { ...(await ruleJson(ctx, userId, channelId)), ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) } as KeepRuleJson
      await db
        .insert(youtubeKeepRules)
        .values({ userId, channelId, ...rule })
        .onConflictDoUpdate({ target: [youtubeKeepRules.userId, youtubeKeepRules.channelId], set: { ...rule, updatedAt: sql`now()` } })
      await applyRules(ctx, { userId, channelId })
      return c.json(rule, 200)
    })
    .put('/videos/:id/keep', valid('param', idParam), valid('json', keepVideoBody), async (c) => {
      const userId = currentUser(c).id
      const videoId = c.req.param('id')
      await requireVideo(ctx.db, videoId)
      const [current] = await db.select().from(youtubeKeeps).where(and(eq(youtubeKeeps.userId, userId), eq(youtubeKeeps.videoId, videoId)))
      const maxHeight = c.req.valid('json').maxHeight ?? (current && !current.removedAt ? current.maxHeight : DEFAULT_KEEP.maxHeight)
      // by hand: pinned, back from a removal, its quota failure cleared (checked again below)
      await db
        .insert(youtubeKeeps)
        .values({ userId, videoId, pinned: true, maxHeight })
        .onConflictDoUpdate({
          target: [youtubeKeeps.userId, youtubeKeeps.videoId],
          set: { pinned: true, maxHeight, removedAt: null, error: null, errorKind: null, ...(current?.removedAt ? { createdAt: sql`now()` } : {}) },
        })
      await quotaProblem(ctx, userId, videoId)
      await retryFailed(ctx, videoId)
      await syncVideo(ctx, videoId)
      return c.json({ state: (await getVideo(db, userId, videoId))?.kept?.state ?? 'queued' }, 202)
    })
    .delete('/videos/:id/keep', valid('param', idParam), async (c) => {
      const userId = currentUser(c).id
      const videoId = c.req.param('id')
      await requireVideo(ctx.db, videoId)
      // the mark stays: no rule fetches it again for this user
      await db
        .update(youtubeKeeps)
        .set({ removedAt: sql`now()`, pinned: false, error: null, errorKind: null })
        .where(and(eq(youtubeKeeps.userId, userId), eq(youtubeKeeps.videoId, videoId), isNull(youtubeKeeps.removedAt)))
      await syncVideo(ctx, videoId)
      return c.body(null, 204)
    })
    .get('/kept', valid('query', pageQuery), async (c) => {
      const userId = currentUser(c).id
      const { page, per_page } = c.req.valid('query')
      const live = and(eq(youtubeKeeps.userId, userId), isNull(youtubeKeeps.removedAt))
      const [[total], ids, used, quota] = await Promise.all([
        db.select({ n: count() }).from(youtubeKeeps).where(live),
        db
          .select({ id: youtubeKeeps.videoId })
          .from(youtubeKeeps)
          .innerJoin(youtubeVideos, eq(youtubeVideos.id, youtubeKeeps.videoId))
          .where(live)
          .orderBy(desc(youtubeVideos.publishedAt), desc(youtubeVideos.id))
          .limit(per_page)
          .offset((page - 1) * per_page),
        usedBytes(db, userId),
        quotaBytes(db, userId),
      ])
      const videos = await videosByIds(db, userId, ids.map((r) => r.id), ctx.env.YOUTUBE_MEDIA_URL)
      return c.json({ videos, totalPages: Math.ceil((total?.n ?? 0) / per_page), usedBytes: used, quotaBytes: quota }, 200)
    })
    .on(['GET', 'HEAD'], '/videos/:id/file', valid('param', idParam), async (c) => {
      const userId = currentUser(c).id
      const videoId = c.req.param('id')
      // for a user who does not keep it, as if no file existed (nothing says whether others keep it)
      const [row] = VIDEO_ID.test(videoId)
        ? await db
            .select({ file: youtubeKeptFiles.file, type: youtubeKeptFiles.contentType })
            .from(youtubeKeeps)
            .innerJoin(youtubeKeptFiles, eq(youtubeKeptFiles.videoId, youtubeKeeps.videoId))
            .where(and(eq(youtubeKeeps.userId, userId), eq(youtubeKeeps.videoId, videoId), isNull(youtubeKeeps.removedAt), isNull(youtubeKeeps.errorKind)))
        : []
      if (!row?.file) fail(404, 'Video not kept.')
      try {
        return await serveKept(ctx, c.req.raw, row.file, row.type ?? 'video/mp4')
      } catch {
        fail(404, 'Video not kept.')
      }
    })
}
