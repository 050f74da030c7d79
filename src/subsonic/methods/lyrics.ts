import { eq, sql } from 'drizzle-orm'
import { musicJobs } from '../../music/tables.ts'
import { inside, jobDir } from '../../music/files.ts'
import { answer } from '../format.ts'
import { querySongs, type SongRow } from '../library.ts'
import { type Lyrics, parseLyricsText, plainText, readLyrics } from '../lyrics.ts'
import { type Call, type Method, oneSong } from './call.ts'

/** Lyrics (OpenSubsonic songLyrics): structured by song id, and plain by artist and title. */

/** The job's kept lyrics first (decision 266; a whole job's song only), then the file's own tags. */
async function lyricsOf(call: Call, row: SongRow): Promise<Lyrics[]> {
  if (row.track === 0) {
    const [kept] = await call.ctx.db.select({ lyrics: musicJobs.lyrics }).from(musicJobs).where(eq(musicJobs.id, row.job_id))
    if (kept?.lyrics) return [parseLyricsText(kept.lyrics)]
  }
  return readLyrics(inside(jobDir(call.ctx.env.DATA_DIR, call.user.id, row.job_id), row.file))
}

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
