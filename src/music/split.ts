import { mkdir, rename } from 'node:fs/promises'
import { writeZip } from '../lib/zip.ts'
import type { Artwork } from './artwork.ts'
import { inside, mp3Name } from './files.ts'
import type { Chapter } from './schema.ts'
import { replayGainTags } from '../tools/loudness.ts'
import type { MusicJobRow, StoredTrack } from './tables.ts'
import { writeTags } from './tags.ts'
import { convertToMp3, type Ffmpeg } from '../tools/ffmpeg.ts'

interface ConvertJob {
  source: string
  /** Scratch folder (removed after the job) and the job's output folder. */
  work: string
  output: string
  row: MusicJobRow
  artwork: Artwork | null
  signal: AbortSignal
  progress: (fraction: number) => void
}

export interface Converted {
  /** Relative to the job folder: the MP3, or the ZIP of the tracks. */
  outputFile: string
  tracks: StoredTrack[]
  /** What goes to WebDAV: the MP3, or each track. */
  pushed: { path: string; name: string }[]
}

/** One MP3 of the whole source (minus `remove` spans), tagged, with ReplayGain. */
export async function convertWhole(ffmpeg: Ffmpeg | null, job: ConvertJob & { remove: [number, number][] }): Promise<Converted> {
  const { row } = job
  const mp3 = inside(job.work, 'output.mp3')
  const loudness = await convertToMp3(ffmpeg, job.source, mp3, job.signal, job.progress, { remove: job.remove })
  job.signal.throwIfAborted()
  await writeTags(mp3, row, job.artwork, loudness && replayGainTags(loudness))
  const name = mp3Name(row.artist, row.title)
  await mkdir(job.output, { recursive: true })
  const final = inside(job.output, name)
  await rename(mp3, final)
  return { outputFile: `output/${name}`, tracks: [], pushed: [{ path: final, name }] }
}

/**
 * One tagged MP3 per chapter (title from the chapter, `n/total`, album, artist
 * and artwork from the job), cut from the source by ffmpeg with input seeking,
 * then one ZIP of them all.
 */
export async function convertChapters(ffmpeg: Ffmpeg | null, job: ConvertJob & { chapters: Chapter[] }): Promise<Converted> {
  const { row, chapters } = job
  const total = chapters.length
  const duration = chapters.reduce((sum, c) => sum + (c.end - c.start), 0)
  await mkdir(job.output, { recursive: true })
  const tracks: StoredTrack[] = []
  const pushed: Converted['pushed'] = []
  let done = 0
  for (const [i, chapter] of chapters.entries()) {
    const n = i + 1
    const length = chapter.end - chapter.start
    const mp3 = inside(job.work, `track-${n}.mp3`)
    const loudness = await convertToMp3(
      ffmpeg,
      job.source,
      mp3,
      job.signal,
      (f) => job.progress((done + f * length) / duration),
      { start: chapter.start, end: chapter.end },
    )
    job.signal.throwIfAborted()
    const tags = { ...row, title: chapter.title, trackNumber: n, trackCount: total }
    await writeTags(mp3, tags, job.artwork, loudness && replayGainTags(loudness))
    const name = mp3Name(row.artist, chapter.title, n)
    const final = inside(job.output, name)
    await rename(mp3, final)
    tracks.push({ title: chapter.title, trackNumber: n, file: `output/${name}` })
    pushed.push({ path: final, name })
    done += length
  }
  const zipName = mp3Name(row.artist, row.album, undefined, 'zip')
  await writeZip(inside(job.output, zipName), pushed)
  return { outputFile: `output/${zipName}`, tracks, pushed }
}
