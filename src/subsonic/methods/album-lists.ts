import { type SQL, sql } from 'drizzle-orm'
import { ErrorGeneric } from '../errors.ts'
import { answer } from '../format.ts'
import { queryAlbums, queryArtists, querySongs } from '../library.ts'
import { SubsonicError } from '../params.ts'
import { albums, type Call, checkFolder, MAX_LIST, type Method, missing, songs } from './call.ts'
import { albumAsChild, toArtist } from './mappers.ts'

/** Album lists: getAlbumList2 by type, random songs, starred items. */

const LIST_TYPES = 'random, newest, frequent, recent, starred, alphabeticalByName, alphabeticalByArtist, byYear or byGenre'

/** The condition and order of an album list type. */
function listOf(call: Call, type: string): { where?: SQL; order: SQL } {
  const { params } = call
  switch (type) {
    case 'random':
      return { order: sql`random()` }
    case 'newest':
      // the album that got a song last comes first
      return { order: sql`newest_ms desc, album_key` }
    case 'frequent':
    case 'highest':
      return { where: sql`play_count > 0`, order: sql`play_count desc, album_key` }
    case 'recent':
      return { where: sql`played_ms is not null`, order: sql`played_ms desc, album_key` }
    case 'starred':
      return { where: sql`starred_ms is not null`, order: sql`starred_ms desc, album_key` }
    case 'alphabeticalByName':
      return { order: sql`lower(name), name, album_key` }
    case 'alphabeticalByArtist':
      return { order: sql`lower(artist), artist, lower(name), album_key` }
    case 'byYear': {
      const from = params.optionalInt('fromYear')
      const to = params.optionalInt('toYear')
      if (from === undefined) throw missing('fromYear')
      if (to === undefined) throw missing('toYear')
      return {
        where: sql`year between ${Math.min(from, to)} and ${Math.max(from, to)}`,
        order: from <= to ? sql`year, lower(name), album_key` : sql`year desc, lower(name), album_key`,
      }
    }
    case 'byGenre':
      return { where: sql`${params.required('genre')} = any(genres)`, order: sql`lower(name), name, album_key` }
    default:
      throw new SubsonicError(ErrorGeneric, `Unknown list type ${type}: use ${LIST_TYPES}.`)
  }
}

/** One page of albums of the list type asked. */
export async function albumList(call: Call) {
  const { params } = call
  checkFolder(params)
  const { where, order } = listOf(call, params.required('type'))
  const page = { limit: params.int('size', 10, 0, MAX_LIST), offset: params.int('offset', 0, 0, Number.MAX_SAFE_INTEGER) }
  const rows = page.limit ? await queryAlbums(call.ctx.db, call.user.id, { where, order, page }) : []
  return albums(call, rows)
}

export const albumLists: Record<string, Method> = {
  getAlbumList2: async (call) => answer('albumList2', { album: await albumList(call) }),
  getAlbumList: async (call) => answer('albumList', { album: (await albumList(call)).map(albumAsChild) }),
  // nothing is reported as playing: scrobbles without submission are not kept
  getNowPlaying: async () => answer('nowPlaying', {}),

  getRandomSongs: async (call) => {
    const { params } = call
    checkFolder(params)
    const size = params.int('size', 10, 0, MAX_LIST)
    const genre = params.get('genre')
    const from = params.optionalInt('fromYear')
    const to = params.optionalInt('toYear')
    const conditions = [
      genre ? sql`genre = ${genre}` : undefined,
      from !== undefined ? sql`year >= ${from}` : undefined,
      to !== undefined ? sql`year <= ${to}` : undefined,
    ].filter((c) => c !== undefined)
    const rows = size
      ? await querySongs(call.ctx.db, call.user.id, {
          where: conditions.length ? sql.join(conditions, sql` and `) : undefined,
          order: sql`random()`,
          page: { limit: size, offset: 0 },
        })
      : []
    return answer('randomSongs', { song: await songs(call, rows) })
  },

  getStarred2: async (call) => {
    const { ctx, user } = call
    checkFolder(call.params)
    const [artists, albumRows, songRows] = await Promise.all([
      queryArtists(ctx.db, user.id, { where: sql`st.starred is not null` }),
      queryAlbums(ctx.db, user.id, { where: sql`starred_ms is not null`, order: sql`starred_ms desc, album_key` }),
      querySongs(ctx.db, user.id, { where: sql`starred is not null`, order: sql`starred desc, job_id, track` }),
    ])
    return answer('starred2', { artist: artists.map(toArtist), album: await albums(call, albumRows), song: await songs(call, songRows) })
  },
}
