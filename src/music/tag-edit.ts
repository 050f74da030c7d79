import { existsSync } from 'node:fs'
import { copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { AppContext } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { writeZip } from '../lib/zip.ts'
import { fetchArtwork, type Artwork } from './artwork.ts'
import { boundArtwork } from './cover-scale.ts'
import { inside, jobDir, mp3Name, sniffImage } from './files.ts'
import { dropLocalJob, fetchJobFiles, jobKey, keptNames, storeJobFiles } from './stored.ts'
import { hasWebdav, webdavUploadJob } from './webdav-job.ts'
import { getMusicJob, updateMusicJob } from './queries.ts'
import type { z } from 'zod'
import type { musicJobPatch } from './schema.ts'
import type { MusicJobRow, StoredTrack } from './tables.ts'
import { squareArtwork } from './square.ts'
import { readReplayGain, writeTags } from './tags.ts'
import { forgetSongFacts } from '../subsonic/library.ts'

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
  // STORAGE=s3: the files are edited on disk (passing work), then stored under their new names
  await fetchJobFiles(ctx, row, keptNames(row))
  const next: MusicJobRow = {
    ...row,
    ...Object.fromEntries(Object.entries(patch).filter(([k]) => k !== 'artworkUrl')),
  }
  // every new file is made in a staging folder first: until the database has the edit, the job's own files stay as they were
  const stage = inside(dir, `edit-${crypto.randomUUID()}`)
  await mkdir(stage, { recursive: true })
  const moves = new FileMoves(dir)
  try {
    const stored = await nextArtwork(ctx, row, next, stage, patch.artworkUrl)
    const artwork = stored && (await squareArtwork(ctx.tools.ffmpeg, stored, stage, AbortSignal.timeout(60_000)))

    // 1. retagged copies under their new names (staged)
    const renamed: { from: string; to: string; staged: string }[] = []
    let tracks: StoredTrack[] = row.tracks
    let outputFile = row.outputFile
    const retagged = async (file: string, name: string, tags: MusicJobRow) => {
      const staged = join(stage, `${renamed.length}.mp3`)
      await copyFile(inside(dir, file), staged)
      await writeTags(staged, tags, artwork, await readReplayGain(staged))
      renamed.push({ from: file, to: `output/${name}`, staged })
      return `output/${name}`
    }
    if (row.tracks.length) {
      tracks = []
      for (const t of row.tracks) {
        const name = mp3Name(next.artist, t.title, t.trackNumber)
        tracks.push({ ...t, file: await retagged(t.file, name, { ...next, title: t.title, trackNumber: t.trackNumber }) })
      }
      outputFile = `output/${mp3Name(next.artist, next.album, undefined, 'zip')}`
      const zip = join(stage, 'tracks.zip')
      await writeZip(
        zip,
        renamed.map((r) => ({ name: r.to.slice('output/'.length), path: r.staged })),
      )
      moves.add(row.outputFile, outputFile, zip)
    } else {
      outputFile = await retagged(row.outputFile, mp3Name(next.artist, next.title), next)
    }
    for (const r of renamed) moves.add(r.from, r.to, r.staged)
    if (stored && patch.artworkUrl) moves.add(row.artworkFile, next.artworkFile!, join(stage, 'artwork'))
    else if (patch.artworkUrl === null && row.artworkFile) moves.add(row.artworkFile, null, null)

    // 2. the database, then the files; a failed step puts back what was done
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
    }
    await updateMusicJob(ctx.db, row.id, values)
    try {
      await moves.apply()
    } catch (err) {
      await moves.undo()
      await updateMusicJob(ctx.db, row.id, {
        title: row.title,
        artist: row.artist,
        album: row.album,
        grouping: row.grouping,
        trackNumber: row.trackNumber,
        year: row.year,
        artworkUrl: row.artworkUrl,
        artworkFile: row.artworkFile,
        outputFile: row.outputFile,
        tracks: row.tracks,
      })
      throw err
    }
    await moves.done()
    await storeEdit(ctx, row, { ...row, ...values })
    // music players see the new file sizes (src/subsonic/library.ts)
    await forgetSongFacts(ctx.db, row.id)

    // 3. WebDAV gets the new files on its own (webdav-job.ts), then loses the old names: `webdav` is null until then
    if (!(await hasWebdav(ctx, row.userId))) return { ...row, ...values }
    await updateMusicJob(ctx.db, row.id, { webdav: null, webdavError: null })
    const remove = renamed.filter((r) => r.from !== r.to).map((r) => r.from.slice('output/'.length))
    await ctx.jobs.enqueue(webdavUploadJob, { jobId: row.id, remove })
    return { ...row, ...values, webdav: null, webdavError: null }
  } finally {
    await rm(stage, { recursive: true, force: true })
    await dropLocalJob(ctx, row)
  }
}

/** The edited files into the store, then the names no longer used out of it. */
async function storeEdit(ctx: AppContext, before: MusicJobRow, after: MusicJobRow) {
  if (ctx.storage.store.kind === 'local') return
  const kept = keptNames(after)
  await storeJobFiles(ctx, after, kept.filter((n) => n !== after.uploadFile))
  for (const name of keptNames(before)) if (!kept.includes(name)) await ctx.storage.store.delete(jobKey(before.userId, before.id, name))
}

/**
 * The file changes of one edit, applied together: each old file is first set
 * aside (renamed within the job folder), then the staged one moved to its
 * name; `undo` puts every old file back, `done` removes the set-aside ones.
 */
class FileMoves {
  private planned: { from: string | null; to: string | null; staged: string | null }[] = []
  private aside: { from: string; backup: string }[] = []
  private placed: string[] = []
  constructor(private dir: string) {}

  add(from: string | null, to: string | null, staged: string | null) {
    this.planned.push({ from, to, staged })
  }

  async apply() {
    for (const { from } of this.planned) {
      if (!from || !existsSync(inside(this.dir, from))) continue
      const backup = `${from}.before-edit`
      await rename(inside(this.dir, from), inside(this.dir, backup))
      this.aside.push({ from, backup })
    }
    for (const { to, staged } of this.planned) {
      if (!to || !staged) continue
      await rename(staged, inside(this.dir, to))
      this.placed.push(to)
    }
  }

  async undo() {
    for (const to of this.placed) await rm(inside(this.dir, to), { force: true }).catch(() => {})
    for (const { from, backup } of this.aside) await rename(inside(this.dir, backup), inside(this.dir, from)).catch(() => {})
  }

  async done() {
    for (const { backup } of this.aside) await rm(inside(this.dir, backup), { force: true })
  }
}

/** The artwork after the edit: a new URL fetched now into `stage/artwork` (400 when it cannot be), null removes it, else the stored one. */
async function nextArtwork(
  ctx: AppContext,
  row: MusicJobRow,
  next: MusicJobRow,
  stage: string,
  url: string | null | undefined,
): Promise<Artwork | null> {
  const dir = jobDir(ctx.env.DATA_DIR, row.userId, row.id)
  if (url === null) {
    next.artworkUrl = null
    next.artworkFile = null
    return null
  }
  if (url !== undefined) {
    let artwork: Artwork
    try {
      // stored at most 4096 px on a side (src/music/cover-scale.ts)
      artwork = await boundArtwork(ctx.tools.ffmpeg, await fetchArtwork(url, ctx.allow, AbortSignal.timeout(ARTWORK_TIMEOUT_MS)), stage)
    } catch {
      fail(400, 'Unable to get artwork.')
    }
    next.artworkUrl = url
    next.artworkFile = `artwork.${artwork.ext}`
    await writeFile(join(stage, 'artwork'), artwork.bytes)
    return artwork
  }
  if (!row.artworkFile) return null
  const bytes = new Uint8Array(await Bun.file(inside(dir, row.artworkFile)).arrayBuffer())
  const kind = sniffImage(bytes)
  return kind ? { ...kind, bytes } : null
}
