import { Hono } from 'hono'
import { currentUser, requireUser } from '../auth/session.ts'
import type { AppContext, AppEnv } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { hit } from '../lib/rate-limit.ts'
import { MalformedMultipart, MultipartReader } from '../lib/multipart.ts'
import { idParam } from '../lib/fields.ts'
import { valid } from '../lib/validate.ts'
import { topics } from '../ws/hub.ts'
import { listenRoute } from '../ws/listen.ts'
import { youtubeClientFor, youtubeMode, type YoutubeClient } from './client.ts'
import { channelRefFrom } from './import.ts'
import { enqueueChannelRefresh, syncSubscriptionsJob } from './jobs.ts'
import { provider } from './provider.ts'
import { chargeUserUnits, firstRefreshUnits } from './quota.ts'
import { channelJson, findChannelByHandle, getChannel, upsertChannels, type ChannelRow } from './queries/channels.ts'
import { getVideo, listVideos, relatedVideos } from './queries/feed.ts'
import { requireGroup } from './personal/groups.ts'
import { hasMutedWords } from './personal/mutes.ts'
import { withDearrow } from './personal/dearrow.ts'
import { addMark, getProgress, removeMark, saveProgress, type MarkKind } from './queries/marks.ts'
import { getUserChannel, listSubscriptions, setUserChannel, subscribe, unsubscribe } from './queries/subscriptions.ts'
import { listCategories, requireVideo, VIDEO_ID } from './queries/videos.ts'
import { importSubscriptions } from './subscriptions-import.ts'
import { afterMarkChange } from './keep/rules.ts'
import './keep/fetch.ts'
import {
  channelRefQuery,
  pageQuery,
  progressBody,
  userChannelBody,
  videoListQuery,
  videoQuery,
} from './schema.ts'

const DAY_MS = 24 * 60 * 60 * 1000
const IMPORT_MAX_BYTES = 2 * 1024 * 1024
/** Channel lookups through the API (1 unit each) per user and hour. */
const LOOKUPS_PER_HOUR = 100


/** `UC...` id, `@handle`, a bare handle or a channel URL → `UC...` or `@handle`; null when it is none of them. */
export function parseChannelInput(input: string): string | null {
  const v = input.trim()
  const ref = channelRefFrom(v)
  if (ref) return ref
  const handle = /^@?([\w.-]{3,100})$/.exec(v)?.[1]
  return handle ? `@${handle.toLowerCase()}` : null
}

/**
 * Finds a channel by id or handle, stored first, else through the API (1
 * unit), storing it. API lookups are limited per user, so that one account
 * cannot spend the day's quota for everyone.
 */
export async function resolveChannel(ctx: AppContext, userId: string, client: () => YoutubeClient, input: string): Promise<ChannelRow | null> {
  const ref = parseChannelInput(input)
  if (!ref) return null
  const stored = ref.startsWith('@') ? await findChannelByHandle(ctx.db, ref) : await getChannel(ctx.db, ref)
  if (stored) return stored
  await hit(ctx.db, `youtube-lookup:${userId}`, LOOKUPS_PER_HOUR, 3600)
  // a channel new to the app costs its lookup and first refresh: charged to the user's share
  const left = await chargeUserUnits(ctx.db, userId, 1 + firstRefreshUnits(ctx.env.YOUTUBE_BACKFILL_VIDEOS), ctx.env.YOUTUBE_USER_DAILY_UNITS)
  if (left !== null) fail(429, `Your share of today's YouTube budget is used up (${left} units left): add more channels tomorrow.`)
  const found = await provider(async () => (ref.startsWith('@') ? await client().channelByHandle(ref) : (await client().channelsById([ref]))[0]))
  if (!found) return null
  await upsertChannels(ctx.db, [found])
  return (await getChannel(ctx.db, found.id)) ?? null
}

const CHANNEL_ID = /^UC[\w-]{22}$/

/**
 * A channel new to the app, opened by its page (docs/product.md#channel-page): looked up
 * (1 API unit, or its public page without a key) and stored, so the page shows its name and
 * picture; null when there is no such channel ('Channel could not be loaded'). Limited per user
 * like every lookup; its videos come when someone subscribes.
 */
async function lookUpChannel(ctx: AppContext, userId: string, client: () => YoutubeClient, id: string): Promise<boolean> {
  if (!CHANNEL_ID.test(id)) return false
  await hit(ctx.db, `youtube-lookup:${userId}`, LOOKUPS_PER_HOUR, 3600)
  if (youtubeMode(ctx.env) === 'api') {
    const left = await chargeUserUnits(ctx.db, userId, 1, ctx.env.YOUTUBE_USER_DAILY_UNITS)
    if (left !== null) fail(429, `Your share of today's YouTube budget is used up (${left} units left): try again tomorrow.`)
  }
  const found = await provider(async () => (await client().channelsById([id]))[0])
  if (!found) return false
  await upsertChannels(ctx.db, [found])
  return true
}

export function youtubeRoutes(ctx: AppContext) {
  const { db, env } = ctx
  const media = env.YOUTUBE_MEDIA_URL
  let cached: YoutubeClient | null = null
  const client = () => (cached ??= youtubeClientFor(ctx))

  const toggle = (kind: MarkKind, on: boolean) => async (c: Parameters<typeof currentUser>[0]) => {
    const user = currentUser(c)
    const id = c.req.param('id') ?? ''
    await requireVideo(db, id)
    if (on) await addMark(db, kind, user.id, id)
    else if (!(await removeMark(db, kind, user.id, id))) fail(404, `Youtube video ${kind} not found.`)
    // keeping's rules: a watch may remove it now; a like or queue entry taken away no longer protects it
    if (kind === 'watch' || !on) await afterMarkChange(ctx, user.id, id)
    const [video] = await withDearrow(ctx, user.id, [(await getVideo(db, user.id, id, media))!])
    return c.json(video!, 200)
  }

  return (
    new Hono<AppEnv>()
      .use(requireUser)

      // ---- subscriptions ----
      .get('/subscriptions/list', valid('query', pageQuery), async (c) => {
        const { page, per_page } = c.req.valid('query')
        return c.json(await listSubscriptions(db, currentUser(c).id, page, per_page), 200)
      })
      .put('/subscriptions/user', valid('query', channelRefQuery), async (c) => {
        const user = currentUser(c)
        const channel = await resolveChannel(ctx, user.id, client, c.req.valid('query').channel_id)
        if (!channel) fail(400, 'Channel not found.')
        await subscribe(db, user.id, channel.id, 'manual')
        await enqueueChannelRefresh(ctx, channel.id)
        return c.json((await channelJson(db, user.id, channel.id))!, 200)
      })
      .delete('/subscriptions/user', valid('query', channelRefQuery), async (c) => {
        const user = currentUser(c)
        const ref = parseChannelInput(c.req.valid('query').channel_id)
        const channel = ref && (ref.startsWith('@') ? await findChannelByHandle(db, ref) : await getChannel(db, ref))
        if (!channel || !(await unsubscribe(db, user.id, channel.id, 'user'))) fail(404, 'Subscription not found.')
        return c.json((await channelJson(db, user.id, channel.id))!, 200)
      })
      .post('/subscriptions/import', async (c) => {
        const user = currentUser(c)
        let text: string | null = null
        try {
          const form = MultipartReader.from(c.req.raw)
          for (let part; (part = await form.next()); ) {
            if (part.name === 'file' && text === null) text = await form.text(IMPORT_MAX_BYTES, 'file')
          }
        } catch (err) {
          if (err instanceof MalformedMultipart) fail(422, `Malformed multipart body: ${err.message}.`)
          throw err
        }
        if (!text?.trim()) fail(422, 'file: Required')
        return c.json(await importSubscriptions(ctx, user.id, text, client), 200)
      })

      // what works without a key (docs/api.md, Video area): the web says so where it matters
      .get('/mode', (c) => c.json({ mode: youtubeMode(env) }, 200))

      // ---- channels ----
      .get('/channels/user', async (c) => {
        const row = await getUserChannel(db, currentUser(c).id)
        if (!row) fail(404, 'Youtube Channel not found.')
        return c.json(
          {
            id: row.channelId,
            updatedAt: row.updatedAt.toISOString(),
            syncedAt: row.syncedAt?.toISOString() ?? null,
            syncError: row.syncError,
          },
          200,
        )
      })
      .post('/channels/user', valid('json', userChannelBody), async (c) => {
        const user = currentUser(c)
        if (youtubeMode(env) === 'feed') fail(400, 'Needs a YouTube API key.')
        const input = c.req.valid('json').channel_id
        const current = await getUserChannel(db, user.id)
        // the 24-hour rule is checked before any API call: a refused change costs no quota
        if (current && Date.now() - current.updatedAt.getTime() < DAY_MS) {
          const ref = parseChannelInput(input)
          const same =
            ref === current.channelId || (!!ref?.startsWith('@') && (await findChannelByHandle(db, ref))?.id === current.channelId)
          if (!same) fail(400, 'Must wait 24 hours before updating channel id.')
        }
        const channel = await resolveChannel(ctx, user.id, client, input)
        if (!channel) fail(400, 'Youtube Channel not found.')
        if (current?.channelId !== channel.id) await setUserChannel(db, user.id, channel.id)
        await ctx.jobs.enqueue(syncSubscriptionsJob, { userId: user.id }, { jobId: `youtube.syncSubscriptions.${user.id}` })
        return c.json({ id: channel.id }, 200)
      })
      .get('/channels/:id', valid('param', idParam), async (c) => {
        const userId = currentUser(c).id
        const id = c.req.param('id')
        let found = await channelJson(db, userId, id)
        if (!found && (await lookUpChannel(ctx, userId, client, id))) found = await channelJson(db, userId, id)
        if (!found) fail(404, 'Youtube Channel not found.')
        return c.json(found, 200)
      })

      // ---- videos ----
      .get('/videos/categories', async (c) => c.json({ categories: await listCategories(db) }, 200))
      .get('/videos/list', valid('query', videoListQuery), async (c) => {
        const q = c.req.valid('query')
        const userId = currentUser(c).id
        const feed = !q.channel_id && !q.liked_only && !q.queued_only
        // a group is checked even where it does not apply, so that a bad one is never silently ignored
        const groupId = q.group ? (await requireGroup(db, userId, q.group)).id : undefined
        const result = await listVideos(
          db,
          userId,
          {
            page: q.page,
            perPage: q.per_page,
            categories: q.video_categories,
            channelId: q.channel_id,
            likedOnly: q.liked_only,
            queuedOnly: q.queued_only,
            hideWatched: q.hide_watched,
            hideShorts: q.hide_shorts,
            hideLive: q.hide_live,
            q: q.q,
            groupId: feed ? groupId : undefined,
            muted: feed && (await hasMutedWords(db, userId)),
          },
          media,
        )
        return c.json({ ...result, videos: await withDearrow(ctx, userId, result.videos) }, 200)
      })
      .get('/videos/:id', valid('param', idParam), valid('query', videoQuery), async (c) => {
        const user = currentUser(c)
        const id = c.req.param('id')
        const video = VIDEO_ID.test(id) ? await getVideo(db, user.id, id, media) : null
        if (!video) fail(404, 'Youtube video not found.')
        const related = await relatedVideos(db, user.id, video, c.req.valid('query').related_videos_length, media)
        const [shown, ...others] = await withDearrow(ctx, user.id, [video, ...related])
        return c.json({ ...shown!, relatedVideos: others }, 200)
      })
      .put('/videos/:id/watch', valid('param', idParam), toggle('watch', true))
      .put('/videos/:id/like', valid('param', idParam), toggle('like', true))
      .delete('/videos/:id/like', valid('param', idParam), toggle('like', false))
      .put('/videos/:id/queue', valid('param', idParam), toggle('queue', true))
      .delete('/videos/:id/queue', valid('param', idParam), toggle('queue', false))
      .get('/videos/:id/progress', valid('param', idParam), async (c) => {
        const id = c.req.param('id')
        await requireVideo(db, id)
        const row = await getProgress(db, currentUser(c).id, id)
        return c.json(
          { playedSeconds: row?.playedSeconds ?? 0, duration: row?.duration ?? 0, updatedAt: row?.updatedAt.toISOString() ?? null },
          200,
        )
      })
      .put('/videos/:id/progress', valid('param', idParam), valid('json', progressBody), async (c) => {
        const id = c.req.param('id')
        await requireVideo(db, id)
        const { playedSeconds, duration } = c.req.valid('json')
        const row = await saveProgress(db, currentUser(c).id, id, playedSeconds, duration)
        return c.json({ playedSeconds: row.playedSeconds, duration: row.duration, updatedAt: row.updatedAt.toISOString() }, 200)
      })

      // ---- live channel updates ----
      .get('/channel/listen', listenRoute(ctx, (user) => topics.channels(user.id)))
  )
}
