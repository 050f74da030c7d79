import { ErrorAuthorizationFail } from '../errors.ts'
import { answer } from '../format.ts'
import { parsePlaylistId, playlistId } from '../ids.ts'
import { notFound, SubsonicError } from '../params.ts'
import { type Call, type Method, ownSongIds, songsByIds } from './call.ts'
import { deletePlaylistRow, insertPlaylist, type PlaylistRow, playlistEntries, playlistOf, playlistsOf, updatePlaylistRow, writeEntries } from './queries.ts'

/** Playlists: the user's own, of their songs. */

async function ownPlaylist(call: Call, id: string) {
  const uuid = parsePlaylistId(id)
  const row = uuid ? await playlistOf(call.ctx.db, call.user.id, uuid) : undefined
  if (!row) throw notFound('Playlist')
  return row
}

async function playlistAnswer(call: Call, row: PlaylistRow, withEntries: boolean) {
  const entries = await songsByIds(call, await playlistEntries(call.ctx.db, row.id))
  const first = entries.find((e) => e.coverArt)
  return {
    id: playlistId(row.id),
    name: row.name,
    comment: row.comment,
    owner: call.user.email,
    public: row.public,
    songCount: entries.length,
    duration: entries.reduce((sum, e) => sum + (e.duration ?? 0), 0),
    created: row.createdAt.toISOString(),
    changed: row.changedAt.toISOString(),
    coverArt: first?.coverArt ?? null,
    ...(withEntries ? { entry: entries } : {}),
  }
}

export const playlists: Record<string, Method> = {
  getPlaylists: async (call) => {
    const { params, ctx, user } = call
    const username = params.get('username')
    if (username && username.toLowerCase() !== user.email) throw new SubsonicError(ErrorAuthorizationFail, 'You can only list your own playlists.')
    const rows = await playlistsOf(ctx.db, user.id)
    return answer('playlists', { playlist: await Promise.all(rows.map((r) => playlistAnswer(call, r, false))) })
  },

  getPlaylist: async (call) => {
    const row = await ownPlaylist(call, call.params.required('id'))
    return answer('playlist', await playlistAnswer(call, row, true))
  },

  createPlaylist: async (call) => {
    const { params, ctx, user } = call
    const existing = params.get('playlistId')
    const entries = await ownSongIds(call, params.all('songId'))
    let row: PlaylistRow
    if (existing) {
      row = await ownPlaylist(call, existing)
      const name = params.get('name')
      if (name) await updatePlaylistRow(ctx.db, row.id, { name: name.slice(0, 300) })
    } else {
      row = await insertPlaylist(ctx.db, user.id, params.required('name').trim().slice(0, 300))
    }
    await writeEntries(ctx.db, row.id, entries)
    return answer('playlist', await playlistAnswer(call, await ownPlaylist(call, playlistId(row.id)), true))
  },

  updatePlaylist: async (call) => {
    const { params, ctx } = call
    const row = await ownPlaylist(call, params.required('playlistId'))
    const name = params.get('name')
    const comment = params.get('comment')
    const pub = params.get('public')
    const adding = await ownSongIds(call, params.all('songIdToAdd'))
    const removing = new Set(params.all('songIndexToRemove').map(Number))
    await updatePlaylistRow(ctx.db, row.id, {
      ...(name ? { name: name.slice(0, 300) } : {}),
      ...(comment !== undefined ? { comment: comment.slice(0, 2000) } : {}),
      ...(pub !== undefined ? { public: pub === 'true' } : {}),
      changedAt: new Date(),
    })
    if (adding.length || removing.size) {
      // indexes count the songs the player sees: entries of deleted jobs are already gone
      const current = await playlistEntries(ctx.db, row.id)
      const kept = current.filter((_, i) => !removing.has(i))
      await writeEntries(ctx.db, row.id, [...kept, ...adding])
    }
    return null
  },

  deletePlaylist: async (call) => {
    const row = await ownPlaylist(call, call.params.required('id'))
    await deletePlaylistRow(call.ctx.db, row.id)
    return null
  },
}
