import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { HTTPException } from 'hono/http-exception'
import type { AppContext, SessionUser } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { MalformedMultipart, MultipartReader, TooLarge } from '../lib/multipart.ts'
import { describeIssues } from '../lib/validate.ts'
import { ArtworkError, decodeArtworkDataUri } from './artwork.ts'
import { boundArtwork } from './cover-scale.ts'
import { inside, jobDir, sniffAudio, type AudioKind } from './files.ts'
import type { LookupService } from './lookup.ts'
import { createPlaylistJobs } from './playlist.ts'
import { storeJobInputs } from './stored.ts'
import { insertAndEnqueue, refusePrivateList, refuseUnsafeUrl } from './new-job.ts'
import { MAX_ARTWORK_BYTES, musicJobFields, playlistJobFields } from './schema.ts'
import { assertRoomForJob, size } from './limits.ts'

const TEXT_FIELDS = new Set([
  'video_url',
  'artwork_url',
  'title',
  'artist',
  'album',
  'grouping',
  'track_number',
  'year',
  'split_chapters',
  'remove_segments',
  'playlist',
])
const MAX_FIELD_BYTES = 64 * 1024
const MAX_ARTWORK_FIELD_BYTES = Math.ceil((MAX_ARTWORK_BYTES * 4) / 3) + 1024

/** The display name of an upload: its last path segment, without control characters. */
export function displayName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? ''
  return base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255)
}

/**
 * Streams one multipart body: the file part straight to `<dir>/<name>.part`
 * (then checked by its bytes), text fields into memory (bounded). Maps
 * parser failures to 4xx.
 */
export async function readUpload(
  req: Request,
  dir: string,
  maxFileBytes: number,
  /** Called before the generic 413 when the file is too large (a more precise refusal). */
  onTooLarge?: () => void,
): Promise<{
  fields: Record<string, string>
  file: { path: string; kind: AudioKind | null; name: string; size: number } | null
}> {
  const form = MultipartReader.from(req)
  const fields: Record<string, string> = {}
  let file: { path: string; kind: AudioKind | null; name: string; size: number } | null = null
  try {
    for (let part; (part = await form.next()); ) {
      if (part.name === 'file') {
        if (part.filename === undefined) fail(422, 'file: Must be a file.')
        if (file) fail(422, 'file: Only one file is accepted.')
        await mkdir(dir, { recursive: true })
        const path = inside(dir, 'upload.part')
        const { size, head } = await form.saveTo(path, maxFileBytes)
        // a browser sends an empty, nameless part when no file was chosen
        if (size === 0 && !part.filename) {
          await rm(path, { force: true })
          continue
        }
        file = { path, kind: sniffAudio(head), name: displayName(part.filename), size }
      } else if (TEXT_FIELDS.has(part.name)) {
        fields[part.name] = await form.text(part.name === 'artwork_url' ? MAX_ARTWORK_FIELD_BYTES : MAX_FIELD_BYTES, part.name)
      }
      // unknown parts are skipped by next()
    }
  } catch (err) {
    await form.cancel()
    if (err instanceof TooLarge) {
      onTooLarge?.()
      fail(413, 'file: Upload is too large.')
    }
    if (err instanceof MalformedMultipart) fail(400, `Malformed multipart body: ${err.message}.`)
    throw err
  }
  return { fields, file }
}

/**
 * POST /jobs/create: validates, stores the upload and artwork, inserts the
 * job and enqueues `music.run`. With `playlist=true`, one job per entry of
 * the playlist (playlist.ts); the ids come back in order.
 */
export async function createMusicJob(
  ctx: AppContext,
  user: SessionUser,
  req: Request,
  lookups: LookupService,
): Promise<{ id: string; ids?: string[] }> {
  const room = await assertRoomForJob(ctx, user.id)
  const id = crypto.randomUUID()
  const dir = jobDir(ctx.env.DATA_DIR, user.id, id)
  try {
    const { fields, file } = await readUpload(req, dir, Math.min(ctx.env.MAX_UPLOAD_BYTES, room), () =>
      room < ctx.env.MAX_UPLOAD_BYTES ? fail(413, `file: There is not room enough left in your storage for this upload (${size(room)} free): delete some jobs.`) : undefined,
    )
    const hasUrl = !!fields.video_url?.trim()
    if (file && hasUrl) fail(422, "'file' and 'video_url' cannot both be defined.")
    if (!file && !hasUrl) fail(422, "'file' or 'video_url' must be defined.")
    if (playlistFlag(fields.playlist)) {
      if (file) fail(422, "playlist: Needs a 'video_url'.")
      await rm(dir, { recursive: true, force: true })
      const parsedList = playlistJobFields.safeParse(fields)
      if (!parsedList.success) fail(422, describeIssues(parsedList.error))
      refusePrivateList('video_url', parsedList.data.video_url!, user)
      await refuseUnsafeUrl('video_url', parsedList.data.video_url!, ctx)
      const ids = await createPlaylistJobs(ctx, user, parsedList.data, lookups, req.signal)
      return { id: ids[0]!, ids }
    }
    const parsed = musicJobFields.safeParse(fields)
    if (!parsed.success) fail(422, describeIssues(parsed.error))
    const input = parsed.data
    if (file && !file.kind) fail(422, 'File is incorrect format.')

    if (input.video_url) {
      refusePrivateList('video_url', input.video_url, user)
      await refuseUnsafeUrl('video_url', input.video_url, ctx)
    }
    let artworkUrl: string | null = null
    let artworkFile: string | null = null
    if (input.artwork_url?.startsWith('data:')) {
      let artwork
      await mkdir(dir, { recursive: true })
      try {
        // larger than 4096 px on a side: scaled down once, here (src/music/cover-scale.ts)
        artwork = await boundArtwork(ctx.tools.ffmpeg, decodeArtworkDataUri(input.artwork_url), dir, req.signal)
      } catch (err) {
        if (!(err instanceof ArtworkError)) throw err
        fail(422, `artwork_url: ${err.message}`)
      }
      artworkFile = `artwork.${artwork.ext}`
      await writeFile(inside(dir, artworkFile), artwork.bytes)
    } else if (input.artwork_url) {
      await refuseUnsafeUrl('artwork_url', input.artwork_url, ctx)
      artworkUrl = input.artwork_url
    }

    // the folder exists from now on, even for a URL job: it is where the job
    // runs, and it tells a restarted process which unfinished jobs are its own
    await mkdir(dir, { recursive: true })
    let uploadFile: string | null = null
    if (file) {
      uploadFile = `upload.${file.kind}`
      await rename(file.path, inside(dir, uploadFile))
    }
    // STORAGE=s3: into the bucket now, so the job can run on any machine (held here while the store is down)
    await storeJobInputs(ctx, { userId: user.id, id }, [uploadFile, artworkFile].filter((n): n is string => !!n))
    await insertAndEnqueue(ctx, {
      id,
      userId: user.id,
      videoUrl: input.video_url ?? null,
      originalFilename: file?.name || (file ? uploadFile : null),
      uploadFile,
      artworkUrl,
      artworkFile,
      title: input.title,
      artist: input.artist,
      album: input.album,
      grouping: input.grouping ?? null,
      trackNumber: input.track_number ?? null,
      year: input.year ?? null,
      splitChapters: input.split_chapters,
      removeSegments: input.remove_segments?.length ? input.remove_segments : null,
    })
    return { id }
  } catch (err) {
    if (!(err instanceof HTTPException) || err.status !== 503) await rm(dir, { recursive: true, force: true })
    throw err
  }
}

const playlistFlag = (v: string | undefined) => v === 'true' || v === '1' || v === 'on'
