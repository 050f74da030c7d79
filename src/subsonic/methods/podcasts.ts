import { HTTPException } from 'hono/http-exception'
import { sendStored } from '../../lib/send-file.ts'
import { youtubeClientFor } from '../../youtube/client.ts'
import { enqueueChannelRefresh } from '../../youtube/jobs.ts'
import { cutOf } from '../../youtube/listen/episode-queries.ts'
import { audioKey } from '../../youtube/listen/audio.ts'
import { requestEpisode } from '../../youtube/listen/episodes.ts'
import { fetchUserEpisodes, setPodcast } from '../../youtube/listen/podcasts.ts'
import { getSponsorblock } from '../../youtube/listen/settings.ts'
import { subscribe } from '../../youtube/queries/subscriptions.ts'
import { parseChannelInput, resolveChannel } from '../../youtube/routes.ts'
import { ErrorGeneric } from '../errors.ts'
import { answer, type EpisodeData } from '../format.ts'
import { episodeId, episodeStreamId, parseEpisodeId, parsePodcastChannelId, podcastChannelId } from '../ids.ts'
import { notFound, SubsonicError } from '../params.ts'
import type { Call, Method } from './call.ts'
import { iso } from './mappers.ts'
import { skipEpisode } from '../../youtube/listen/skips.ts'
import { type EpisodeRow, episodesOf, type PodcastRow, podcastsOf, videoChannel } from './podcast-queries.ts'

/**
 * Podcasts (docs/decisions/261): the user's podcast feeds (src/youtube/listen/) as Subsonic
 * channels, a channel's episodes its newest `keepLast` videos, each with its file's state for
 * the user's SponsorBlock cut. Ids: `pc-<channel>`, `pe-<video>`, streamed as `ps-<video>`.
 */

const NEWEST_MAX = 100

export const userCut = async (call: Call) => cutOf(await getSponsorblock(call.ctx.db, call.user.id))

function statusOf(e: EpisodeRow): string {
  if (e.skipped) return 'skipped'
  if (e.state === 'ready' && e.file) return 'completed'
  if (e.state === 'fetching') return 'downloading'
  if (e.state === 'failed') return 'error'
  return 'new'
}

export function toEpisode(e: EpisodeRow, channelId: string): EpisodeData {
  const status = statusOf(e)
  const v = e.video
  return {
    id: episodeId(v.id),
    streamId: status === 'completed' ? episodeStreamId(v.id) : null,
    channelId: podcastChannelId(channelId),
    parent: podcastChannelId(channelId),
    isDir: false,
    title: v.title,
    album: null,
    artist: null,
    description: v.description,
    publishDate: v.publishedAt.toISOString(),
    status,
    duration: Math.round(e.duration ?? v.duration),
    size: status === 'completed' ? e.size : null,
    contentType: 'audio/mpeg',
    suffix: 'mp3',
    coverArt: podcastChannelId(channelId),
    created: iso(v.publishedAt.getTime()),
    type: 'podcast',
    isVideo: false,
  }
}

/** The user's podcast of a `pc-` id; error 70 when it is not theirs. */
async function onePodcast(call: Call, id: string): Promise<PodcastRow> {
  const channelId = parsePodcastChannelId(id)
  const [p] = channelId ? await podcastsOf(call.ctx.db, call.user.id, channelId) : []
  if (!p) throw notFound('Podcast channel')
  return p
}

/** An episode (by `pe-` or `ps-` id) of one of the user's podcasts; error 70 otherwise. */
export async function oneEpisode(call: Call, id: string, cut?: string): Promise<{ episode: EpisodeRow; podcast: PodcastRow; cut: string }> {
  const videoId = parseEpisodeId(id)
  const channelId = videoId ? await videoChannel(call.ctx.db, videoId) : null
  const [podcast] = channelId ? await podcastsOf(call.ctx.db, call.user.id, channelId) : []
  const c = cut ?? (await userCut(call))
  const [episode] = podcast && videoId ? await episodesOf(call.ctx.db, call.user.id, c, podcast.channelId, 1, videoId) : []
  if (!podcast || !episode) throw notFound('Podcast episode')
  return { episode, podcast, cut: c }
}

/** `stream`/`download` of a `ps-`/`pe-` id: the episode's file with byte ranges. */
export async function sendEpisode(call: Call, id: string, download: boolean): Promise<Response> {
  const { episode } = await oneEpisode(call, id)
  if (statusOf(episode) !== 'completed') throw notFound('Podcast episode file')
  // from the store (either kind), never a redirect: many players follow none
  const res = await sendStored(call.c.req.raw, call.ctx.storage.store, audioKey(`podcast/${episode.file!}`), { filename: `${episode.video.id}.mp3`, type: 'audio/mpeg' }).catch(() => {
    throw notFound('Podcast episode file')
  })
  if (!download) res.headers.delete('Content-Disposition')
  return res
}

/** A YouTube channel link or `@handle`, and nothing else: any other address is refused before anything is fetched. */
function youtubeChannelRef(url: string): string {
  const v = url.trim()
  const refuse = () => new SubsonicError(ErrorGeneric, 'Only YouTube channels can be added.')
  if (/^[a-z][a-z0-9+.-]*:/i.test(v) || v.includes('/')) {
    let host: string
    try {
      host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : `https://${v}`).hostname.toLowerCase()
    } catch {
      throw refuse()
    }
    if (!/^(?:(?:www|m|music)\.)?youtube\.com$/.test(host)) throw refuse()
  }
  const ref = parseChannelInput(v)
  if (!ref) throw refuse()
  return v
}

/** Runs app code that answers with `fail()` (4xx) as Subsonic errors. */
async function asSubsonic<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (err) {
    if (err instanceof HTTPException && err.status < 500) throw new SubsonicError(err.status === 404 ? 70 : ErrorGeneric, err.message)
    throw err
  }
}

export const podcasts: Record<string, Method> = {
  getPodcasts: async (call) => {
    const { params, ctx, user } = call
    const id = params.get('id')
    const list = id ? [await onePodcast(call, id)] : await podcastsOf(ctx.db, user.id)
    const withEpisodes = params.bool('includeEpisodes', true)
    const cut = await userCut(call)
    const channel = []
    for (const p of list) {
      const episodes = withEpisodes ? await episodesOf(ctx.db, user.id, cut, p.channelId, p.keepLast) : []
      channel.push({
        id: podcastChannelId(p.channelId),
        url: `https://www.youtube.com/channel/${p.channelId}`,
        title: p.title,
        description: `${p.title}: the newest ${p.keepLast} videos as audio.`,
        coverArt: podcastChannelId(p.channelId),
        originalImageUrl: p.thumbnail || null,
        status: 'completed',
        episode: episodes.map((e) => toEpisode(e, p.channelId)),
      })
    }
    return answer('podcasts', { channel })
  },

  getNewestPodcasts: async (call) => {
    const { params, ctx, user } = call
    const count = params.int('count', 20, 0, NEWEST_MAX)
    const cut = await userCut(call)
    const all: EpisodeData[] = []
    for (const p of await podcastsOf(ctx.db, user.id))
      for (const e of await episodesOf(ctx.db, user.id, cut, p.channelId, Math.min(p.keepLast, count))) if (!e.skipped) all.push(toEpisode(e, p.channelId))
    all.sort((a, b) => (b.publishDate ?? '').localeCompare(a.publishDate ?? '') || (b.id ?? '').localeCompare(a.id ?? ''))
    return answer('newestPodcasts', { episode: all.slice(0, count) })
  },

  getPodcastEpisode: async (call) => {
    const { episode, podcast } = await oneEpisode(call, call.params.required('id'))
    return answer('podcastEpisode', toEpisode(episode, podcast.channelId))
  },

  refreshPodcasts: async (call) => {
    await fetchUserEpisodes(call.ctx, call.user.id)
    return null
  },

  createPodcastChannel: async (call) => {
    const { ctx, user } = call
    const ref = youtubeChannelRef(call.params.required('url'))
    await asSubsonic(async () => {
      const channel = await resolveChannel(ctx, user.id, () => youtubeClientFor(ctx), ref)
      if (!channel) throw new SubsonicError(70, 'YouTube channel not found.')
      await subscribe(ctx.db, user.id, channel.id, 'manual')
      await enqueueChannelRefresh(ctx, channel.id)
      await setPodcast(ctx, user.id, channel.id, true, undefined)
    })
    return null
  },

  /** Turns the podcast off; the follow stays. */
  deletePodcastChannel: async (call) => {
    const p = await onePodcast(call, call.params.required('id'))
    await asSubsonic(() => setPodcast(call.ctx, call.user.id, p.channelId, false, undefined))
    return null
  },

  /** Fetches the episode now (a skipped one is put back). */
  downloadPodcastEpisode: async (call) => {
    const { episode, cut } = await oneEpisode(call, call.params.required('id'))
    await skipEpisode(call.ctx.db, call.user.id, episode.video.id, false)
    await requestEpisode(call.ctx, episode.video.id, cut, { owner: call.user.id, retryFailed: true })
    return null
  },

  /** Takes the episode out of the feed: listed as skipped; it still counts in keepLast. */
  deletePodcastEpisode: async (call) => {
    const { episode } = await oneEpisode(call, call.params.required('id'))
    await skipEpisode(call.ctx.db, call.user.id, episode.video.id, true)
    return null
  },
}
