import { bigint, boolean, foreignKey, integer, jsonb, pgTable, primaryKey, real, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { users } from '../../auth/tables.ts'
import { youtubeChannels, youtubeVideos } from '../tables.ts'

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/** A user's SponsorBlock choices: category → `skip` | `mute` | `show` | `off` (missing categories: the defaults). */
export const youtubeSponsorblockSettings = pgTable('youtube_sponsorblock_settings', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  categories: jsonb('categories').$type<Record<string, string>>().notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
})

/** SponsorBlock segments of a video as last looked up (by hash prefix), kept for SEGMENTS_TTL (docs/decisions/191). */
export const youtubeSegmentCache = pgTable('youtube_segment_cache', {
  videoId: text('video_id')
    .primaryKey()
    .references(() => youtubeVideos.id, { onDelete: 'cascade' }),
  segments: jsonb('segments').$type<{ uuid: string; category: string; actionType: string; start: number; end: number }[]>().notNull(),
  fetchedAt: ts('fetched_at').notNull().defaultNow(),
})

/**
 * A video's audio for listen mode, fetched once with yt-dlp into
 * DATA_DIR/audio (docs/decisions/192). `state`: fetching | ready | failed.
 */
export const youtubeAudio = pgTable('youtube_audio', {
  videoId: text('video_id')
    .primaryKey()
    .references(() => youtubeVideos.id, { onDelete: 'cascade' }),
  state: text('state').notNull(),
  /** The sentence for a person when `failed`. */
  error: text('error'),
  /** File name under DATA_DIR/audio once ready. */
  file: text('file'),
  contentType: text('content_type'),
  size: bigint('size', { mode: 'number' }),
  createdAt: ts('created_at').notNull().defaultNow(),
  /** When the fetch failed: POST reports the failure for a minute, then starts again. */
  failedAt: ts('failed_at'),
  /** Last served (or made ready): the cache drops the least recently played first. */
  playedAt: ts('played_at').notNull().defaultNow(),
})

/** A followed channel as the user's private podcast (docs/decisions/193). */
export const youtubePodcasts = pgTable(
  'youtube_podcasts',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => youtubeChannels.id, { onDelete: 'cascade' }),
    enabled: boolean('enabled').notNull(),
    keepLast: integer('keep_last').notNull().default(10),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.channelId] })],
)

/** The per-user secret in feed URLs; rotation replaces it (old URLs answer 404 at once). */
export const youtubePodcastSecrets = pgTable('youtube_podcast_secrets', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secret: text('secret').notNull().unique(),
  /** The first secret shown (never rotated): the feeds' podcast:guid is made from it (podcasting20.ts). */
  firstSecret: text('first_secret'),
  createdAt: ts('created_at').notNull().defaultNow(),
})

/**
 * A podcast episode's file (docs/decisions/206): the video's audio with one set of skip
 * categories (`cut`, the categories sorted and comma-joined; '' cuts nothing) removed,
 * as MP3, under DATA_DIR/audio/podcast. Users with the same skip choices share it.
 * `state`: fetching | ready | failed.
 */
export const youtubePodcastEpisodes = pgTable(
  'youtube_podcast_episodes',
  {
    videoId: text('video_id')
      .notNull()
      .references(() => youtubeVideos.id, { onDelete: 'cascade' }),
    cut: text('cut').notNull(),
    state: text('state').notNull(),
    error: text('error'),
    file: text('file'),
    size: bigint('size', { mode: 'number' }),
    /** Seconds of the served file (after the cut), for itunes:duration. */
    duration: real('duration'),
    /** Seconds cut out. */
    removed: real('removed').notNull().default(0),
    /** The spans cut out, in the video's seconds (times in the file are converted through them: cut-time.ts). */
    spans: jsonb('spans').$type<[number, number][]>(),
    /** SponsorBlock could not be reached when it was made: nothing cut; the hourly job makes it again. */
    uncut: boolean('uncut').notNull().default(false),
    /** Chapters in its texts (youtube_podcast_episode_texts), for the feed's podcast:chapters. */
    chapterCount: integer('chapter_count').notNull().default(0),
    /** The transcript's language when it has one, for the feed's podcast:transcript. */
    transcriptLang: text('transcript_lang'),
    createdAt: ts('created_at').notNull().defaultNow(),
    failedAt: ts('failed_at'),
    /** Last served (or made): the cache drops the least recently played first, episodes in a feed excepted. */
    playedAt: ts('played_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.videoId, t.cut] })],
)

/**
 * Episodes a person took out of their feed from a player (Subsonic deletePodcastEpisode): left
 * out of their feed, listed as `skipped`; they still count in keepLast (docs/decisions/261).
 */
export const youtubePodcastSkips = pgTable(
  'youtube_podcast_skips',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    videoId: text('video_id')
      .notNull()
      .references(() => youtubeVideos.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.videoId] })],
)

/**
 * A video's chapters and subtitles as yt-dlp gave them with its audio (video time;
 * docs/decisions/291): what each episode's chapters and transcript are made from when it is cut.
 */
export const youtubeAudioTexts = pgTable('youtube_audio_texts', {
  videoId: text('video_id')
    .primaryKey()
    .references(() => youtubeVideos.id, { onDelete: 'cascade' }),
  /** `{title, start, end}` in the video's seconds. */
  chapters: jsonb('chapters').$type<{ title: string; start: number; end: number }[]>().notNull(),
  /** The chosen subtitles (WebVTT, bounded and cleaned) and their language, or null. */
  subtitles: text('subtitles'),
  subtitlesLang: text('subtitles_lang'),
  fetchedAt: ts('fetched_at').notNull().defaultNow(),
})

/**
 * An episode's chapters (JSON Chapters 1.2.0) and transcript (WebVTT) in the served file's time,
 * made once when it was cut (docs/decisions/291); served as they are by the feed routes.
 */
export const youtubePodcastEpisodeTexts = pgTable(
  'youtube_podcast_episode_texts',
  {
    videoId: text('video_id').notNull(),
    cut: text('cut').notNull(),
    chapters: text('chapters'),
    transcript: text('transcript'),
  },
  (t) => [
    primaryKey({ columns: [t.videoId, t.cut] }),
    foreignKey({ columns: [t.videoId, t.cut], foreignColumns: [youtubePodcastEpisodes.videoId, youtubePodcastEpisodes.cut] }).onDelete('cascade'),
  ],
)
