import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { users } from '../auth/tables.ts'

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/**
 * A music job: a video link or an uploaded file plus tags, turned into a
 * tagged MP3 by the `music.run` job. Its files live in
 * DATA_DIR/music/<userId>/<id>/ (see files.ts); the columns name them
 * relative to that folder.
 */
export const musicJobs = pgTable(
  'music_jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    videoUrl: text('video_url'),
    /** The upload's name as the browser sent it (display only, never a path). */
    originalFilename: text('original_filename'),
    /** Stored upload, e.g. `upload.wav`. */
    uploadFile: text('upload_file'),
    /** External artwork URL as given; null for none or a data URI (stored instead). */
    artworkUrl: text('artwork_url'),
    /** Stored artwork, e.g. `artwork.jpg`, from a data URI at creation or fetched by the job. */
    artworkFile: text('artwork_file'),
    title: text('title').notNull(),
    artist: text('artist').notNull(),
    album: text('album').notNull(),
    grouping: text('grouping'),
    /** TRCK `n/total`; the total is known for chapters and playlists. */
    trackNumber: integer('track_number'),
    trackCount: integer('track_count'),
    year: integer('year'),
    /** One tagged track per chapter (see src/tools/chapters.ts). */
    splitChapters: boolean('split_chapters').notNull().default(false),
    /** SponsorBlock categories cut out of a YouTube video, e.g. `music_offtopic`. */
    removeSegments: text('remove_segments').array(),
    /** The split tracks, e.g. `{title, trackNumber, file: 'output/01 Intro.mp3'}`; outputFile is then their ZIP. */
    tracks: jsonb('tracks').$type<StoredTrack[]>().notNull().default([]),
    /**
     * The song's lyrics as kept (docs/decisions/266): LRC when synced, else plain text; null for none.
     * A split job's tracks have none (a chapter's lyrics are not looked up).
     */
    lyrics: text('lyrics'),
    /** Where they came from: the file's own tags, the LYRICS_URL look-up, or the person's edit. */
    lyricsSource: text('lyrics_source', { enum: ['file', 'lookup', 'edited'] }),
    /** Something the user should know about a finished job (e.g. SponsorBlock was unreachable). */
    notice: text('notice'),
    progress: integer('progress').notNull().default(0),
    /** The MP3, e.g. `output/Artist - Title.mp3`, once completed. */
    outputFile: text('output_file'),
    /** null (no account), `uploaded` or `failed`. */
    webdav: text('webdav', { enum: ['uploaded', 'failed'] }),
    webdavError: text('webdav_error'),
    /** Why the job failed, in the tool's own words (log and support; the API shows errorKind's sentence). */
    error: text('error'),
    /** The failure's kind (src/tools/failure.ts), null while not failed. */
    errorKind: text('error_kind'),
    /**
     * Set while the job waits for its turn at YouTube (src/tools/pace.ts): `turn` (the time
     * between extractions), `hour` (the hourly limit) or `pause` (after a bot check); null otherwise.
     */
    waitingReason: text('waiting_reason', { enum: ['turn', 'hour', 'pause'] }),
    /** When that wait should end (its turn, or the pause's end). */
    waitingUntil: ts('waiting_until'),
    startedAt: ts('started_at'),
    completed: ts('completed'),
    failed: ts('failed'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('music_jobs_user_created_idx').on(t.userId, t.createdAt),
    // the Subsonic library pages songs in the order jobs finished (src/subsonic/library.ts)
    index('music_jobs_user_completed_idx').on(t.userId, t.completed, t.id),
  ],
)

/** A split track as stored: its file relative to the job folder. */
export interface StoredTrack {
  title: string
  trackNumber: number
  file: string
}

export type MusicJobRow = typeof musicJobs.$inferSelect
