import { answer } from '../format.ts'
import { parseSongId } from '../ids.ts'
import { notFound } from '../params.ts'
import { type Method, ownSongIds, songsByIds } from './call.ts'
import { playQueueOf, savePlayQueueRow } from './queries.ts'

/** The play queue (and, with it in Navidrome's bookmarks.go, the bookmarks). */
export const playQueue: Record<string, Method> = {
  getPlayQueue: async (call) => {
    const { ctx, user } = call
    const row = await playQueueOf(ctx.db, user.id)
    if (!row) return null
    const ids = row.songIds.map(parseSongId).filter((s): s is NonNullable<typeof s> => !!s)
    const entry = await songsByIds(call, ids)
    return answer('playQueue', {
      current: row.current && entry.some((e) => e.id === row.current) ? row.current : entry[0]?.id,
      position: row.position,
      username: user.email,
      changed: row.changedAt.toISOString(),
      changedBy: row.changedBy,
      entry,
    })
  },

  savePlayQueue: async (call) => {
    const { params, ctx, user } = call
    const ids = await ownSongIds(call, params.all('id'))
    if (!ids.length) {
      await savePlayQueueRow(ctx.db, user.id, null)
      return null
    }
    const current = params.get('current') || ids[0]!.id
    if (!ids.some((i) => i.id === current)) throw notFound('Current song in the queue')
    await savePlayQueueRow(ctx.db, user.id, {
      songIds: ids.map((i) => i.id),
      current,
      position: Math.max(0, params.optionalInt('position') ?? 0),
      changedAt: new Date(),
      changedBy: (params.get('c') ?? '').slice(0, 200),
    })
    return null
  },
}
