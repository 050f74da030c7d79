import { open, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import NodeID3 from 'node-id3'
import type { AppContext } from '../../context.ts'
import type { Tx } from '../../db/client.ts'
import { rowsOf } from '../../db/rows.ts'
import type { Chapter } from '../../tools/chapters.ts'
import type { Span } from './cut-time.ts'
import { fileChapters, fileCues, jsonChapters, MAX_SUBTITLE_BYTES, parseVtt, pickSubtitle, writeVtt } from './episode-texts.ts'
import { youtubeAudioTexts, youtubePodcastEpisodeTexts } from './tables.ts'

/**
 * Chapters and transcripts of podcast episodes (docs/decisions/291), stored: the video's as
 * yt-dlp gave them with the audio (youtube_audio_texts), and each episode's in its file's time,
 * made once when it is cut (youtube_podcast_episode_texts, and ID3 CTOC/CHAP frames in the MP3).
 */

/** PODCAST_SUBTITLE_LANGS as a list. */
export const subtitleLangs = (ctx: AppContext) =>
  ctx.env.PODCAST_SUBTITLE_LANGS.split(',')
    .map((l) => l.trim())
    .filter(Boolean)

/** At most `max` bytes of a file as text; null when it is larger. */
async function readBounded(path: string, max: number): Promise<string | null> {
  const f = await open(path, 'r')
  try {
    const buf = Buffer.alloc(max + 1)
    const { bytesRead } = await f.read(buf, 0, max + 1, 0)
    return bytesRead > max ? null : buf.subarray(0, bytesRead).toString('utf8')
  } finally {
    await f.close()
  }
}

/** Keeps what the audio's yt-dlp pass brought besides the audio: its chapters and the subtitles in `workDir` (the first language of PODCAST_SUBTITLE_LANGS there is). */
export async function saveAudioTexts(ctx: AppContext, videoId: string, workDir: string, chapters: Chapter[]) {
  const picked = pickSubtitle(await readdir(workDir).catch(() => []), subtitleLangs(ctx))
  const raw = picked ? await readBounded(join(workDir, picked.file), MAX_SUBTITLE_BYTES) : null
  const cues = raw ? parseVtt(raw) : []
  // stored as clean WebVTT in the video's time (untrusted text: markup and control characters gone)
  const subtitles = cues.length ? writeVtt(cues) : null
  const row = { chapters, subtitles, subtitlesLang: subtitles ? picked!.lang : null }
  await ctx.db.insert(youtubeAudioTexts).values({ videoId, ...row }).onConflictDoUpdate({ target: youtubeAudioTexts.videoId, set: row })
}

/**
 * The episode's chapters and transcript in the file's time, from its video's (spans: what was cut,
 * in the video's seconds); the chapters are written into the MP3 at `mp3` as CTOC/CHAP frames.
 */
export async function makeEpisodeTexts(db: Tx, videoId: string, spans: readonly Span[], mp3: string, duration?: number) {
  const [source] = await db.select().from(youtubeAudioTexts).where(eq(youtubeAudioTexts.videoId, videoId))
  const chapters = source ? fileChapters(source.chapters, spans, duration) : []
  const cues = source?.subtitles ? fileCues(parseVtt(source.subtitles), spans) : []
  if (chapters.length) {
    const ids = chapters.map((_, i) => `chp${i}`)
    // rejects when it cannot write (node-id3's promise API)
    await NodeID3.Promise.update(
      {
        tableOfContents: [{ elementID: 'toc', isOrdered: true, elements: ids }],
        chapter: chapters.map((c, i) => ({ elementID: ids[i]!, startTimeMs: Math.round(c.startTime * 1000), endTimeMs: Math.round(c.endTime * 1000), tags: { title: c.title } })),
      },
      mp3,
    )
  }
  return {
    chapterCount: chapters.length,
    transcriptLang: cues.length ? source!.subtitlesLang : null,
    chapters: chapters.length ? JSON.stringify(jsonChapters(chapters)) : null,
    transcript: cues.length ? writeVtt(cues) : null,
  }
}

export async function saveEpisodeTexts(db: Tx, videoId: string, cut: string, texts: { chapters: string | null; transcript: string | null }) {
  const row = { chapters: texts.chapters, transcript: texts.transcript }
  await db
    .insert(youtubePodcastEpisodeTexts)
    .values({ videoId, cut, ...row })
    .onConflictDoUpdate({ target: [youtubePodcastEpisodeTexts.videoId, youtubePodcastEpisodeTexts.cut], set: row })
}

/**
 * The chapters or transcript of `videoId` as the owner's feed serves them (docs/decisions/291),
 * in one query after the owner and their cut: only an episode the feed lists (the podcast on and
 * followed, a plain video among the newest keepLast ready episodes with the owner's cut, not taken
 * out by them); null otherwise.
 */
export async function feedEpisodeText(db: Tx, userId: string, cut: string, videoId: string, which: 'chapters' | 'transcript'): Promise<string | null> {
  const column = which === 'chapters' ? sql`t.chapters` : sql`t.transcript`
  const [row] = rowsOf<{ text: string | null }>(
    await db.execute(sql`
      select ${column} as text from youtube_podcast_episode_texts t
      join youtube_podcast_episodes e on e.video_id = t.video_id and e.cut = t.cut and e.state = 'ready'
      join youtube_videos v on v.id = t.video_id and v.kind = 'video'
      join youtube_podcasts p on p.user_id = ${userId} and p.channel_id = v.channel_id and p.enabled
      join youtube_subscriptions sub on sub.user_id = p.user_id and sub.channel_id = p.channel_id and sub.deleted_at is null
      where t.video_id = ${videoId} and t.cut = ${cut}
        and not exists (select 1 from youtube_podcast_skips k where k.user_id = ${userId} and k.video_id = t.video_id)
        and (select count(*) from youtube_podcast_episodes e2 join youtube_videos v2 on v2.id = e2.video_id
             where v2.channel_id = v.channel_id and v2.kind = 'video' and e2.cut = ${cut} and e2.state = 'ready'
               and (v2.published_at, v2.id) > (v.published_at, v.id)) < p.keep_last`),
  )
  return row?.text ?? null
}
