import { rename, rm, writeFile } from 'node:fs/promises'
import type { AppContext } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { writeZip } from '../lib/zip.ts'
import { fetchArtwork, type Artwork } from './artwork.ts'
import { inside, jobDir, mp3Name, sniffImage } from './files.ts'
import { hasWebdav, webdavUploadJob } from './webdav-job.ts'
import { getMusicJob, updateMusicJob } from './queries.ts'
import type { z } from 'zod'
import type { musicJobPatch } from './schema.ts'
import type { MusicJobRow, StoredTrack } from './tables.ts'
import { squareArtwork } from './square.ts'
import { readReplayGain, writeTags } from './tags.ts'

const ARTWORK_TIMEOUT_MS = 30_000
const editing = new Map<string, Promise<unknown>>()

/**
 * PATCH /jobs/{id}: the finished file's tags rewritten in place (no new
 * download; ReplayGain kept), renamed after the new tags, and pushed to
 * WebDAV again (the old name removed there). Split jobs: every track and the
 * ZIP. One edit per job at a time.
 */
export async function editJobTags(ctx: AppContext, row: MusicJobRow, patch: z.output<typeof musicJobPatch>): Promise<MusicJobRow> {
  const before = editing.get(row.id) ?? Promise.resolve()
  const run = before.catch(() => {}).then(() => rewrite(ctx, row.id, patch))
  editing.set(row.id, run)
  try {
    return await run
  } finally {
    if (editing.get(row.id) === run) editing.delete(row.id)
  }
}

async function rewrite(ctx: AppContext, id: string, patch: z.output<typeof musicJobPatch>): Promise<MusicJobRow> {
  const row = await getMusicJob(ctx.db, id)
  if (!row) fail(404, 'Job not found.')
  if (!row.completed || !row.outputFile) fail(409, 'Job is not finished.')
  const dir = jobDir(ctx.env.DATA_DIR, row.userId, row.id)
  const next: MusicJobRow = {
    ...row,
    ...Object.fromEntries(Object.entries(patch).filter(([k]) => k !== 'artworkUrl')),
  }
  const stored = await nextArtwork(ctx, row, next, dir, patch.artworkUrl)
  const artwork = stored && (await squareArtwork(ctx.tools.ffmpeg, stored, dir, AbortSignal.timeout(60_000)))

  const renamed: { from: string; to: string; path: string }[] = []
  let tracks: StoredTrack[] = row.tracks
  let outputFile = row.outputFile
  if (row.tracks.length) {
    tracks = []
    for (const t of row.tracks) {
      const name = mp3Name(next.artist, t.title, t.trackNumber)
      tracks.push({ ...t, file: await retag(dir, t.file, name, { ...next, title: t.title, trackNumber: t.trackNumber }, artwork, renamed) })
    }
    const zipName = mp3Name(next.artist, next.album, undefined, 'zip')
    await rm(inside(dir, row.outputFile), { force: true })
    await writeZip(
      inside(dir, `output/${zipName}`),
      tracks.map((t) => ({ name: t.file.slice('output/'.length), path: inside(dir, t.file) })),
    )
    outputFile = `output/${zipName}`
  } else {
    outputFile = await retag(dir, row.outputFile, mp3Name(next.artist, next.title), next, artwork, renamed)
  }

  // WebDAV gets the new files on its own (webdav-job.ts), then loses the old names: `webdav` is null until then
  const toWebdav = await hasWebdav(ctx, row.userId)
  const { webdav, webdavError } = toWebdav ? { webdav: null, webdavError: null } : row
  const values = {
    title: next.title,
    artist: next.artist,
    album: next.album,
    grouping: next.grouping,
    trackNumber: next.trackNumber,
    year: next.year,
    artworkUrl: next.artworkUrl,
    artworkFile: next.artworkFile,
    outputFile,
    tracks,
    webdav,
    webdavError,
  }
  await updateMusicJob(ctx.db, row.id, values)
  if (toWebdav) await ctx.jobs.enqueue(webdavUploadJob, { jobId: row.id, remove: renamed.filter((r) => r.from !== r.to).map((r) => r.from) })
  return { ...row, ...values }
}

/** Rewrites one MP3's tags and moves it to `name`; returns its new relative path. */
async function retag(
  dir: string,
  file: string,
  name: string,
  tags: MusicJobRow,
  artwork: Artwork | null,
  renamed: { from: string; to: string; path: string }[],
): Promise<string> {
  const path = inside(dir, file)
  await writeTags(path, tags, artwork, await readReplayGain(path))
  const target = `output/${name}`
  if (target !== file) await rename(path, inside(dir, target))
  renamed.push({ from: file.slice('output/'.length), to: name, path: inside(dir, target) })
  return target
}

/** The artwork after the edit: a new URL fetched now (400 when it cannot be), null removes it, else the stored one. */
async function nextArtwork(
  ctx: AppContext,
  row: MusicJobRow,
  next: MusicJobRow,
  dir: string,
  url: string | null | undefined,
): Promise<Artwork | null> {
  if (url === null) {
    next.artworkUrl = null
    next.artworkFile = null
    if (row.artworkFile) await rm(inside(dir, row.artworkFile), { force: true })
    return null
  }
  if (url !== undefined) {
    let artwork: Artwork
    try {
      artwork = await fetchArtwork(url, ctx.allow, AbortSignal.timeout(ARTWORK_TIMEOUT_MS))
    } catch {
      fail(400, 'Unable to get artwork.')
    }
    if (row.artworkFile) await rm(inside(dir, row.artworkFile), { force: true })
    next.artworkUrl = url
    next.artworkFile = `artwork.${artwork.ext}`
    await writeFile(inside(dir, next.artworkFile), artwork.bytes)
    return artwork
  }
  if (!row.artworkFile) return null
  const bytes = new Uint8Array(await Bun.file(inside(dir, row.artworkFile)).arrayBuffer())
  const kind = sniffImage(bytes)
  return kind ? { ...kind, bytes } : null
}
