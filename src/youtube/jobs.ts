import { youtubeMode } from './client.ts'
import { z } from 'zod'
import type { AppContext } from '../context.ts'
import type { JobDefinition, JobModule } from '../jobs/types.ts'
import { errorFields, log } from '../lib/logger.ts'
import { fetchAllEpisodes } from './listen/podcasts.ts'
import { QuotaExhausted, assertQuotaLeft, quotaDay } from './quota.ts'
import { notifyUsers } from '../notifications/jobs.ts'
import { pageUrl } from '../lib/origin.ts'
import { followedChannelIds, followers } from './queries/channels.ts'
import { usersWithChannel } from './queries/subscriptions.ts'
import { refreshCategories, refreshChannel, resetStuckRefreshes, type RefreshOutcome } from './refresh.ts'
import { syncSubscriptions } from './sync.ts'
import { pushCoveredChannels } from './websub/sync.ts'
import { youtubeVideoCategories } from './tables.ts'

// The video area's background jobs, named `youtube.verb`. Handlers are plain
// functions over the app context; without a queue (CLI) they run inline.

export const channelIdSchema = z.string().regex(/^UC[\w-]{22}$/, 'must be a channel id (UC...)')
export const dateAfterSchema = z
  .string()
  .regex(/^\d{8}$/, 'must be YYYYMMDD')
  .refine((s) => !Number.isNaN(parseDateAfter(s).getTime()), 'must be a real date')

/** `YYYYMMDD` (yt-dlp's date_after) as the start of that UTC day. */
export function parseDateAfter(s: string): Date {
  const d = new Date(`${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T00:00:00Z`)
  // rejects 20250231 and the like, which Date would roll over or refuse
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10).replace(/-/g, '') === s ? d : new Date(Number.NaN)
}

type Ctx = AppContext
/** Margin after the Pacific-midnight reset before resuming. */
const RESUME_MARGIN_MS = 5 * 60 * 1000

async function resumeAfterReset(ctx: Ctx, resetsAt: Date, what: 'channels' | 'subscriptions') {
  if (!ctx.jobs) return
  const delayMs = Math.max(0, resetsAt.getTime() - Date.now()) + RESUME_MARGIN_MS
  const day = quotaDay()
  if (what === 'channels') {
    await ctx.jobs.enqueue(refreshAllChannelsJob, {}, { jobId: `youtube.refreshAllChannels.resume.${day}`, delayMs })
  } else {
    await ctx.jobs.enqueue(syncSubscriptionsJob, {}, { jobId: `youtube.syncSubscriptions.resume.${day}`, delayMs })
  }
  log.info('youtube work resumes after the quota reset', { what, resetsAt: resetsAt.toISOString() })
}

/** Told after a channel's refresh finished (keeping's rules add its new uploads: src/youtube/keep/rules.ts). */
export const afterChannelRefresh: ((ctx: AppContext, channelId: string) => Promise<void>)[] = []

async function refreshed(ctx: AppContext, channelId: string) {
  for (const then of afterChannelRefresh) {
    try {
      await then(ctx, channelId)
    } catch (err) {
      log.error('after channel refresh', { channelId, ...errorFields(err) })
    }
  }
}

export const refreshChannelPayload = z.object({ channelId: channelIdSchema, dateAfter: dateAfterSchema.optional() })

export const refreshChannelJob: JobDefinition<z.infer<typeof refreshChannelPayload>> = {
  name: 'youtube.refreshChannel',
  payload: refreshChannelPayload,
  timeoutMs: 10 * 60 * 1000,
  async run(ctx, p, job) {
    const outcome = await refreshChannel(
      ctx,
      { channelId: p.channelId, dateAfter: p.dateAfter ? parseDateAfter(p.dateAfter) : undefined },
      { signal: job.signal, onNews: (channel, videos) => afterNews(ctx, channel, videos) },
    )
    if (outcome.status === 'quota') await resumeAfterReset(ctx, outcome.resetsAt, 'channels')
    else await refreshed(ctx, p.channelId)
  },
}

/**
 * What a refresh that found new uploads sets off, whether a poll or a push started it: followers
 * are told, and the channel's podcasts make their episodes now rather than at the hourly pass
 * (docs/decisions/254). Must not throw (the refresh itself is done).
 */
async function afterNews(ctx: AppContext, channel: { id: string; title: string }, videos: { id: string; title: string }[]) {
  await notifyNewVideos(ctx, channel, videos)
  try {
    await fetchAllEpisodes(ctx, channel.id)
  } catch (err) {
    log.warn('podcast episodes after a refresh failed', { channelId: channel.id, ...errorFields(err) })
  }
}

/** One message per refresh to each follower who wants it: the new videos' titles and links. */
async function notifyNewVideos(ctx: AppContext, channel: { id: string; title: string }, videos: { id: string; title: string }[]) {
  const n = videos.length
  await notifyUsers(ctx, await followers(ctx.db, channel.id), 'onNewVideos', {
    event: 'videos.new',
    title: `${n} new video${n === 1 ? '' : 's'} from ${channel.title}`,
    text: `New from ${channel.title}:`,
    url: pageUrl(ctx, `/youtube/channel/${channel.id}`),
    items: videos.slice(0, 100).map((v) => ({ title: v.title, url: pageUrl(ctx, `/youtube/video/${v.id}`) ?? `https://www.youtube.com/watch?v=${v.id}` })),
  })
}

/** Queues one channel's refresh; a refresh of the same channel already waiting is not added twice. */
export function enqueueChannelRefresh(ctx: Ctx, channelId: string, dateAfter?: string): Promise<string> {
  return ctx.jobs.enqueue(
    refreshChannelJob,
    { channelId, ...(dateAfter ? { dateAfter } : {}) },
    { jobId: `youtube.refreshChannel.${channelId}${dateAfter ? `.${dateAfter}` : ''}` },
  )
}

export const refreshAllPayload = z.object({ dateAfter: dateAfterSchema.optional() })

/** Every followed channel: queued one by one, or run inline (least recently refreshed first) without a queue. */
export async function refreshAllChannels(ctx: Ctx, p: { dateAfter?: string }, signal?: AbortSignal) {
  const queued: string[] = []
  const outcomes: RefreshOutcome[] = []
  try {
    await assertQuotaLeft(ctx.db)
  } catch (err) {
    if (!(err instanceof QuotaExhausted)) throw err
    await resumeAfterReset(ctx, err.resetsAt, 'channels')
    return { queued, outcomes, stopped: err.reason }
  }
  // a channel the hub pushes for is polled every 6 hours rather than hourly (docs/decisions/256)
  const covered = p.dateAfter ? new Set<string>() : await pushCoveredChannels(ctx.db)
  for (const channelId of await followedChannelIds(ctx.db)) {
    if (covered.has(channelId)) continue
    if (ctx.jobs) {
      queued.push(await enqueueChannelRefresh(ctx, channelId, p.dateAfter))
      continue
    }
    signal?.throwIfAborted()
    const outcome = await refreshChannel(ctx, {
      channelId,
      dateAfter: p.dateAfter ? parseDateAfter(p.dateAfter) : undefined,
    })
    outcomes.push(outcome)
    if (outcome.status === 'quota') return { queued, outcomes, stopped: outcome.reason }
    await refreshed(ctx, channelId)
  }
  return { queued, outcomes, stopped: null }
}

export const refreshAllChannelsJob: JobDefinition<z.infer<typeof refreshAllPayload>> = {
  name: 'youtube.refreshAllChannels',
  payload: refreshAllPayload,
  async run(ctx, p, job) {
    await refreshAllChannels(ctx, p, job.signal)
  },
}

export const syncSubscriptionsPayload = z.object({ userId: z.uuid().optional() })

/** One user's sync, or every user with a channel (stopping at the quota). */
export async function syncAllSubscriptions(ctx: Ctx, p: { userId?: string }, signal?: AbortSignal) {
  // a channel's public subscriptions are only in the API: nothing to sync without a key
  if (youtubeMode(ctx.env) === 'feed') return []
  const userIds = p.userId ? [p.userId] : await usersWithChannel(ctx.db)
  const results = []
  for (const userId of userIds) {
    signal?.throwIfAborted()
    const outcome = await syncSubscriptions(ctx, userId, { signal })
    results.push({ userId, ...outcome })
    if (outcome.status === 'done' && ctx.jobs) {
      for (const channelId of outcome.added) await enqueueChannelRefresh(ctx, channelId)
    }
    if (outcome.status === 'quota') {
      await resumeAfterReset(ctx, outcome.resetsAt, 'subscriptions')
      break
    }
  }
  return results
}

export const syncSubscriptionsJob: JobDefinition<z.infer<typeof syncSubscriptionsPayload>> = {
  name: 'youtube.syncSubscriptions',
  payload: syncSubscriptionsPayload,
  async run(ctx, p, job) {
    await syncAllSubscriptions(ctx, p, job.signal)
  },
  owner: async (_ctx, p) => p.userId ?? null,
}

const noPayload = z.object({}).strict()

export const refreshCategoriesJob: JobDefinition<z.infer<typeof noPayload>> = {
  name: 'youtube.refreshCategories',
  payload: noPayload,
  async run(ctx, _p, job) {
    try {
      await refreshCategories(ctx, { signal: job.signal })
    } catch (err) {
      if (!(err instanceof QuotaExhausted)) throw err
      log.warn('categories not refreshed: quota', { reason: err.reason })
    }
  },
}

/**
 * A fresh install has no category names yet: fetch them now instead of at the
 * next daily run, so the feed's 'Categories' filter appears on first use (the
 * job id dedups across processes).
 */
async function fetchFirstCategories(ctx: Ctx) {
  if (!ctx.env.SCHEDULER || !ctx.env.YOUTUBE_API_KEY) return
  const [known] = await ctx.db.select({ id: youtubeVideoCategories.id }).from(youtubeVideoCategories).limit(1)
  if (!known) {
    await ctx.jobs.enqueue(refreshCategoriesJob, {}, { jobId: 'youtube.refreshCategories.first-start' })
  }
}

/** The video area's jobs and schedules, listed in src/jobs/registry.ts. */
export const youtubeJobs: JobModule = {
  // no refresh survives its process: clear `updating` before any job can start; with a shared
  // queue (QUEUE_URL) other processes may be refreshing right now, so only claims gone stale
  beforeStart: async (ctx) => void (await resetStuckRefreshes(ctx, { staleOnly: !!ctx.env.QUEUE_URL })),
  onStart: fetchFirstCategories,
  definitions: [refreshChannelJob, refreshAllChannelsJob, syncSubscriptionsJob, refreshCategoriesJob],
  // channel videos hourly, subscriptions and categories daily (off the hour, away from other work)
  schedules: [
    { id: 'youtube.refreshAllChannels.hourly', job: refreshAllChannelsJob, payload: {}, pattern: '7 * * * *' },
    { id: 'youtube.syncSubscriptions.daily', job: syncSubscriptionsJob, payload: {}, pattern: '17 4 * * *' },
    { id: 'youtube.refreshCategories.daily', job: refreshCategoriesJob, payload: {}, pattern: '27 4 * * *' },
  ],
}
