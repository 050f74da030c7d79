import { sql } from 'drizzle-orm'
import { answer } from '../format.ts'
import { containing, queryAlbums, queryArtists, querySongs } from '../library.ts'
import { albums, type Call, checkFolder, type Method, pageOf, songs } from './call.ts'
import { albumAsChild, toArtist } from './mappers.ts'

/** Search text: an empty query, `""` or `*` (as players send them) lists everything. */
function searchText(raw: string | undefined): string | null {
  const q = (raw ?? '').trim().replace(/^"(.*)"$/, '$1').replace(/\*/g, '').trim()
  return q || null
}

/** Artists, albums and songs matching `query`, each paged on its own (search3's parameters). */
export async function search(call: Call) {
  const { params, ctx, user } = call
  checkFolder(params)
  const q = searchText(params.get('query'))
  const like = q ? containing(q) : null
  const artistPage = pageOf(params, 'artistCount', 'artistOffset')
  const albumPage = pageOf(params, 'albumCount', 'albumOffset')
  const songPage = pageOf(params, 'songCount', 'songOffset')
  const [artists, albumRows, songRows] = await Promise.all([
    artistPage.limit ? queryArtists(ctx.db, user.id, { where: like ? sql`a.name ilike ${like}` : undefined, page: artistPage }) : [],
    albumPage.limit ? queryAlbums(ctx.db, user.id, { where: like ? sql`(name ilike ${like} or artist ilike ${like})` : undefined, order: sql`lower(name), name, album_key`, page: albumPage }) : [],
    songPage.limit ? querySongs(ctx.db, user.id, { where: like ? sql`(title ilike ${like} or artist ilike ${like} or album ilike ${like})` : undefined, page: songPage }) : [],
  ])
  return { artist: artists.map(toArtist), album: await albums(call, albumRows), song: await songs(call, songRows) }
}

export const searching: Record<string, Method> = {
  search3: async (call) => answer('searchResult3', await search(call)),
  search2: async (call) => {
    const found = await search(call)
    return answer('searchResult2', { ...found, album: found.album.map(albumAsChild) })
  },
}
