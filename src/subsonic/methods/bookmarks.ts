import { fileToVideo, type Span, videoToFile } from '../../youtube/listen/cut-time.ts'
import { skipSpans } from '../../youtube/listen/segments.ts'
import { saveProgress } from '../../youtube/queries/marks.ts'
import { ErrorMissingParameter } from '../errors.ts'
import { answer } from '../format.ts'
import { episodeId, parseEpisodeId, parseSongId, songId } from '../ids.ts'
import { SubsonicError } from '../params.ts'
import { type Call, type Method, ownSongIds, songsByIds } from './call.ts'
import { bookmarkComments, deleteBookmarkRow, deleteProgress, type EpisodeRow, episodesOf, podcastsOf, progressIn, saveBookmark, songBookmarks } from './podcast-queries.ts'
import { oneEpisode, toEpisode, userCut } from './podcasts.ts'

/**
 * Bookmarks (docs/decisions/262): a song's in subsonic_bookmarks; an episode's is the web
 * player's saved position for its video, kept in the video's time and converted through the
 * spans cut out of the episode's file (positions in a bookmark are the file's, in ms).
 */

/** The spans cut out of the episode's file: as stored when it was made, else (older files) as SponsorBlock lists them now. */
async function spansOf(call: Call, e: EpisodeRow, cut: string): Promise<Span[]> {
  if (e.spans) return e.spans
  if (!cut) return []
  const spans = await skipSpans(call.ctx, e.video.id, cut.split(','), call.c.req.raw.signal).catch(() => null)
  return (spans ?? []).map((s) => [s.start, s.end] as Span)
}

export const bookmarks: Record<string, Method> = {
  getBookmarks: async (call) => {
    const { ctx, user } = call
    const bookmark = []
    const songRows = await songBookmarks(ctx.db, user.id)
    const songs = new Map((await songsByIds(call, songRows.map((r) => parseSongId(r.itemId)!).filter(Boolean))).map((s) => [s.id, s]))
    for (const r of songRows) {
      const entry = songs.get(r.itemId)
      if (entry) bookmark.push({ position: r.position, username: user.email, comment: r.comment, created: r.createdAt.toISOString(), changed: r.changedAt.toISOString(), entry })
    }
    const podcasts = await podcastsOf(ctx.db, user.id)
    const progress = await progressIn(
      ctx.db,
      user.id,
      podcasts.map((p) => p.channelId),
    )
    const comments = await bookmarkComments(
      ctx.db,
      user.id,
      progress.map((p) => episodeId(p.videoId)),
    )
    const cut = await userCut(call)
    for (const p of progress) {
      const [e] = await episodesOf(ctx.db, user.id, cut, p.channelId, 1, p.videoId)
      if (!e) continue
      const note = comments.get(episodeId(p.videoId))
      bookmark.push({
        position: Math.round(videoToFile(p.playedSeconds, await spansOf(call, e, cut)) * 1000),
        username: user.email,
        comment: note?.comment ?? null,
        created: (note?.createdAt ?? p.updatedAt).toISOString(),
        changed: p.updatedAt.toISOString(),
        entry: toEpisode(e, p.channelId),
      })
    }
    return answer('bookmarks', { bookmark })
  },

  createBookmark: async (call) => {
    const { params, ctx, user } = call
    const id = params.required('id')
    const raw = params.optionalInt('position')
    if (raw === undefined) throw new SubsonicError(ErrorMissingParameter, 'Required parameter is missing: position.')
    const position = Math.max(0, raw)
    const comment = params.get('comment')?.slice(0, 2000) || null
    if (parseEpisodeId(id)) {
      const { episode, cut } = await oneEpisode(call, id)
      const total = episode.video.duration || episode.duration || 0
      const seconds = fileToVideo(position / 1000, await spansOf(call, episode, cut))
      await saveProgress(ctx.db, user.id, episode.video.id, total ? Math.min(seconds, total) : seconds, total)
      await saveBookmark(ctx.db, user.id, episodeId(episode.video.id), position, comment)
      return null
    }
    const [song] = await ownSongIds(call, [id])
    await saveBookmark(ctx.db, user.id, songId(song!.jobId, song!.track), position, comment)
    return null
  },

  deleteBookmark: async (call) => {
    const { ctx, user } = call
    const id = call.params.required('id')
    if (parseEpisodeId(id)) {
      const { episode } = await oneEpisode(call, id)
      await deleteProgress(ctx.db, user.id, episode.video.id)
      await deleteBookmarkRow(ctx.db, user.id, episodeId(episode.video.id))
      return null
    }
    const [song] = await ownSongIds(call, [id])
    await deleteBookmarkRow(ctx.db, user.id, songId(song!.jobId, song!.track))
    return null
  },
}
