import { ErrorMissingParameter } from '../errors.ts'
import { parseSongId } from '../ids.ts'
import { notFound, SubsonicError } from '../params.ts'
import { type Call, type Method, oneAlbum, oneArtist, ownSongIds } from './call.ts'
import { countPlay, starItem, starSong } from './queries.ts'

/** Media annotation: stars and plays. */

async function setStars(call: Call, starred: boolean) {
  const { params, ctx, user } = call
  const songIds = await ownSongIds(call, params.all('id').filter((id) => parseSongId(id)))
  const others = params.all('id').filter((id) => !parseSongId(id))
  const albumIds = [...others.filter((id) => id.startsWith('al-')), ...params.all('albumId')]
  const artistIds = [...others.filter((id) => id.startsWith('ar-')), ...params.all('artistId')]
  if (others.some((id) => !id.startsWith('al-') && !id.startsWith('ar-'))) throw notFound('Item')
  if (!songIds.length && !albumIds.length && !artistIds.length) throw new SubsonicError(ErrorMissingParameter, 'Required parameter is missing: id, albumId or artistId.')
  for (const id of albumIds) await oneAlbum(call, id)
  for (const id of artistIds) await oneArtist(call, id)
  const when = starred ? new Date() : null
  for (const s of songIds) await starSong(ctx.db, user.id, s, when)
  for (const id of [...albumIds, ...artistIds]) await starItem(ctx.db, user.id, id.toLowerCase(), when)
  return null
}

export const annotation: Record<string, Method> = {
  star: (call) => setStars(call, true),
  unstar: (call) => setStars(call, false),

  scrobble: async (call) => {
    const { params, ctx, user } = call
    const ids = await ownSongIds(call, params.all('id'))
    if (!ids.length) throw new SubsonicError(ErrorMissingParameter, 'Required parameter is missing: id.')
    if (!params.bool('submission', true)) return null
    const times = params.all('time').map(Number)
    for (const [i, s] of ids.entries()) {
      const at = Number.isFinite(times[i]) && times[i]! > 0 ? new Date(times[i]!) : new Date()
      await countPlay(ctx.db, user.id, s, at)
    }
    return null
  },
}
