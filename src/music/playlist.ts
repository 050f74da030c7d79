import { mkdir, writeFile } from 'node:fs/promises'
import type { AppContext, SessionUser } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { tmpdir } from 'node:os'
import { ArtworkError, decodeArtworkDataUri } from './artwork.ts'
import { boundArtwork } from './cover-scale.ts'
import { insertAndEnqueue, refusePrivateList, refuseUnsafeUrl } from './new-job.ts'
import { inside, jobDir } from './files.ts'
import { assertRoomForJobs } from './limits.ts'
import type { LookupService } from './lookup.ts'
import type { PlaylistJobFields } from './schema.ts'
import { parseUploadTitle } from './title-parse.ts'

/**
 * `playlist=true`: one job per entry (at most 100, the lookup's list), its
 * title and artist parsed from the entry's title (the form's artist as the
 * fallback), the album from the form or else the playlist's title, and
 * `n/total` from the entry's position. Every other field applies to all.
 */
export async function createPlaylistJobs(
  ctx: AppContext,
  user: SessionUser,
  input: PlaylistJobFields,
  lookups: LookupService,
  signal: AbortSignal,
): Promise<string[]> {
  const found = await lookups.lookup(user, input.video_url!, signal)
  if (!found.playlist || found.playlist.entries.length === 0) fail(422, 'playlist: The link is not a playlist.')
  const { entries } = found.playlist
  for (const entry of entries) {
    refusePrivateList('video_url', entry.url, user)
    await refuseUnsafeUrl('video_url', entry.url, ctx)
  }

  let artwork: ReturnType<typeof decodeArtworkDataUri> | null = null
  if (input.artwork_url?.startsWith('data:')) {
    try {
      // bounded once for every entry's copy (src/music/cover-scale.ts)
      artwork = await boundArtwork(ctx.tools.ffmpeg, decodeArtworkDataUri(input.artwork_url), tmpdir(), signal)
    } catch (err) {
      if (!(err instanceof ArtworkError)) throw err
      fail(422, `artwork_url: ${err.message}`)
    }
  } else if (input.artwork_url) await refuseUnsafeUrl('artwork_url', input.artwork_url, ctx)

  // every entry is a job: all of them must fit the per-user limit, or none is created
  await assertRoomForJobs(ctx, user.id, entries.length)

  const album = input.album ?? found.playlist.title ?? found.album ?? 'Playlist'
  const ids: string[] = []
  for (const [i, entry] of entries.entries()) {
    const id = crypto.randomUUID()
    const dir = jobDir(ctx.env.DATA_DIR, user.id, id)
    await mkdir(dir, { recursive: true })
    const artworkFile = artwork ? `artwork.${artwork.ext}` : null
    if (artwork) await writeFile(inside(dir, artworkFile!), artwork.bytes)
    const parsed = parseUploadTitle(entry.title ?? '')
    await insertAndEnqueue(ctx, {
      id,
      userId: user.id,
      videoUrl: entry.url,
      artworkUrl: artwork ? null : (input.artwork_url ?? null),
      artworkFile,
      title: parsed.title || `Track ${i + 1}`,
      artist: parsed.artist ?? input.artist ?? found.artist ?? 'Unknown Artist',
      album,
      grouping: input.grouping ?? found.grouping,
      trackNumber: i + 1,
      trackCount: entries.length,
      year: input.year ?? null,
      splitChapters: false,
      removeSegments: input.remove_segments?.length ? input.remove_segments : null,
    })
    ids.push(id)
  }
  return ids
}
