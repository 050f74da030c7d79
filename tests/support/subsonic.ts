import { copyFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { jobDir } from '../../src/music/files.ts'
import { insertMusicJob } from '../../src/music/queries.ts'
import { writeTags } from '../../src/music/tags.ts'
import type { TestApp } from './app.ts'
import { ffmpeg, testMedia } from './media.ts'

let source: Promise<string> | undefined

/** A 2 s stereo MP3 at 128 kb/s made once per test process (the stand-in for a converted track). */
export function songSource(): Promise<string> {
  source ??= (async () => {
    const m = await testMedia()
    const path = join(m.dir, 'song-source.mp3')
    await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=660:duration=2', '-ac', '2', '-c:a', 'libmp3lame', '-b:a', '128k', path])
    return path
  })()
  return source
}

export interface FinishedSong {
  title: string
  artist: string
  album: string
  grouping?: string | null
  year?: number | null
  trackNumber?: number | null
  /** Chapter titles: the job becomes a split with one track each. */
  tracks?: string[]
  artwork?: boolean
  completed?: Date
}

/**
 * A finished music job as the pipeline leaves it (tagged MP3s with ReplayGain, artwork file,
 * `completed`), written straight into the database and DATA_DIR: library answers without
 * running yt-dlp and ffmpeg for each song.
 */
export async function addFinishedJob(t: TestApp, userId: string, song: FinishedSong): Promise<string> {
  const id = crypto.randomUUID()
  const dir = jobDir(t.ctx.env.DATA_DIR, userId, id)
  await mkdir(join(dir, 'output'), { recursive: true })
  const m = await testMedia()
  const src = await songSource()
  let artworkFile: string | null = null
  if (song.artwork !== false) {
    artworkFile = 'artwork.jpg'
    await copyFile(m.jpg, join(dir, artworkFile))
  }
  const gain = { REPLAYGAIN_TRACK_GAIN: '-6.50 dB', REPLAYGAIN_TRACK_PEAK: '0.891251' }
  const tags = { title: song.title, artist: song.artist, album: song.album, grouping: song.grouping ?? null, year: song.year ?? null }
  const tracks: { title: string; trackNumber: number; file: string }[] = []
  let outputFile: string
  if (song.tracks?.length) {
    for (const [i, title] of song.tracks.entries()) {
      const file = `output/${String(i + 1).padStart(2, '0')} ${song.artist} - ${title}.mp3`
      await copyFile(src, join(dir, file))
      await writeTags(join(dir, file), { ...tags, title, trackNumber: i + 1, trackCount: song.tracks.length }, null, gain)
      tracks.push({ title, trackNumber: i + 1, file })
    }
    outputFile = `output/${song.artist} - ${song.album}.zip`
  } else {
    outputFile = `output/${song.artist} - ${song.title}.mp3`
    await copyFile(src, join(dir, outputFile))
    await writeTags(join(dir, outputFile), { ...tags, trackNumber: song.trackNumber ?? null }, null, gain)
  }
  await insertMusicJob(t.ctx.db, {
    id,
    userId,
    videoUrl: 'https://example.com/watch',
    title: song.title,
    artist: song.artist,
    album: song.album,
    grouping: song.grouping ?? null,
    year: song.year ?? null,
    trackNumber: song.trackNumber ?? null,
    splitChapters: !!song.tracks?.length,
    tracks,
    artworkFile,
    outputFile,
    progress: 100,
    completed: song.completed ?? new Date(),
  })
  return id
}
