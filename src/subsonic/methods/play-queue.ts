import { answer } from '../format.ts'
import { parseSongId } from '../ids.ts'
import { notFound, type Params } from '../params.ts'
import { type Call, type Method, missing, ownSongIds, songsByIds } from './call.ts'
import { playQueueOf, savePlayQueueRow } from './queries.ts'

/** The play queue, by current song id or (OpenSubsonic indexBasedQueue) by index. */

/** The saved queue as the player sees it now: songs deleted since are left out and the current index follows. */
async function savedQueue(call: Call) {
  const row = await playQueueOf(call.ctx.db, call.user.id)
  if (!row) return null
  const ids = row.songIds.map(parseSongId).filter((s): s is NonNullable<typeof s> => !!s)
  const entry = await songsByIds(call, ids)
  const present = new Set(entry.map((e) => e.id))
  const stored = row.currentIndex ?? row.songIds.indexOf(row.current ?? '')
  const keptBefore = row.songIds.slice(0, Math.max(0, stored)).filter((id) => present.has(id)).length
  const currentIndex = entry.length && stored >= 0 && present.has(row.songIds[stored] ?? '') ? keptBefore : entry.length ? 0 : undefined
  return { row, entry, currentIndex }
}

async function save(call: Call, params: Params, currentOf: (ids: { id: string }[]) => number) {
  const { ctx, user } = call
  const ids = await ownSongIds(call, params.all('id'))
  if (!ids.length) {
    await savePlayQueueRow(ctx.db, user.id, null)
    return null
  }
  const index = currentOf(ids)
  await savePlayQueueRow(ctx.db, user.id, {
    songIds: ids.map((i) => i.id),
    current: ids[index]!.id,
    currentIndex: index,
    position: Math.max(0, params.optionalInt('position') ?? 0),
    changedAt: new Date(),
    changedBy: (params.get('c') ?? '').slice(0, 200),
  })
  return null
}

export const playQueue: Record<string, Method> = {
  getPlayQueue: async (call) => {
    const saved = await savedQueue(call)
    if (!saved) return null
    const { row, entry, currentIndex } = saved
    return answer('playQueue', {
      current: currentIndex === undefined ? undefined : entry[currentIndex]!.id,
      position: row.position,
      username: call.user.email,
      changed: row.changedAt.toISOString(),
      changedBy: row.changedBy,
      entry,
    })
  },

  getPlayQueueByIndex: async (call) => {
    const saved = await savedQueue(call)
    if (!saved) return null
    const { row, entry, currentIndex } = saved
    return answer('playQueueByIndex', {
      currentIndex,
      position: row.position,
      username: call.user.email,
      changed: row.changedAt.toISOString(),
      changedBy: row.changedBy,
      entry,
    })
  },

  savePlayQueue: (call) =>
    save(call, call.params, (ids) => {
      const current = call.params.get('current')
      if (!current) return 0
      const index = ids.findIndex((i) => i.id === current)
      if (index < 0) throw notFound('Current song in the queue')
      return index
    }),

  savePlayQueueByIndex: (call) =>
    save(call, call.params, (ids) => {
      const index = call.params.optionalInt('currentIndex')
      if (index === undefined) throw missing('currentIndex')
      if (index < 0 || index >= ids.length) throw notFound('Current index in the queue')
      return index
    }),
}
