import { sql } from 'drizzle-orm'
import { inside, jobDir } from '../../music/files.ts'
import { answer } from '../format.ts'
import { querySongs, type SongRow } from '../library.ts'
import { plainText, readLyrics } from '../lyrics.ts'
import { type Call, type Method, oneSong } from './call.ts'

/** Lyrics (OpenSubsonic songLyrics): structured by song id, and plain by artist and title. */

const lyricsOf = (call: Call, row: SongRow) => readLyrics(inside(jobDir(call.ctx.env.DATA_DIR, call.user.id, row.job_id), row.file))

export const lyrics: Record<string, Method> = {
  getLyricsBySongId: async (call) => {
    const row = await oneSong(call, call.params.required('id'))
    const found = await lyricsOf(call, row)
    return answer('lyricsList', {
      structuredLyrics: found.map((l) => ({
        lang: l.lang,
        synced: l.synced,
        displayArtist: row.artist,
        displayTitle: row.title,
        offset: 0,
        line: l.lines.map((x) => ({ start: l.synced ? x.start : undefined, value: x.value })),
      })),
    })
  },

  /** The first of the user's songs by that artist and title (either may be left out) that has lyrics. */
  getLyrics: async (call) => {
    const artist = call.params.get('artist')?.trim()
    const title = call.params.get('title')?.trim()
    if (!artist && !title) return answer('lyrics', {})
    const conditions = [artist ? sql`lower(artist) = lower(${artist})` : undefined, title ? sql`lower(title) = lower(${title})` : undefined].filter((c) => c !== undefined)
    const rows = await querySongs(call.ctx.db, call.user.id, { where: sql.join(conditions, sql` and `), page: { limit: 20, offset: 0 } })
    for (const row of rows) {
      const [first] = await lyricsOf(call, row)
      if (first) return answer('lyrics', { artist: row.artist, title: row.title, value: plainText(first) })
    }
    return answer('lyrics', {})
  },
}
