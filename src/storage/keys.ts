import { and, eq, isNotNull } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { keptNames, jobKey, jobPrefix } from '../music/stored.ts'
import { musicJobs } from '../music/tables.ts'
import { keptKey } from '../youtube/keep/files.ts'
import { youtubeKeptFiles } from '../youtube/keep/tables.ts'
import { youtubeAudio, youtubePodcastEpisodes } from '../youtube/listen/tables.ts'
import type { Store } from './types.ts'

/** The folders (key prefixes) under which the app keeps files. */
export const KEPT_ROOTS = ['music/', 'audio/', 'videos/'] as const

/**
 * Every key the database names (finished music jobs' files, ready listen-mode audio and podcast
 * episodes), and the prefixes of passing work the store may hold meanwhile (unfinished jobs).
 */
export async function expectedKeys(db: Db): Promise<{ keys: Set<string>; optional: Set<string>; passing: string[] }> {
  const keys = new Set<string>()
  /** Named by a row but not always made (a kept video's thumbnail, its show's tvshow.nfo and poster). */
  const optional = new Set<string>()
  const passing: string[] = []
  const jobs = await db
    .select({ id: musicJobs.id, userId: musicJobs.userId, completed: musicJobs.completed, uploadFile: musicJobs.uploadFile, artworkFile: musicJobs.artworkFile, outputFile: musicJobs.outputFile, tracks: musicJobs.tracks })
    .from(musicJobs)
  for (const j of jobs) {
    if (!j.completed) passing.push(jobPrefix(j.userId, j.id))
    else for (const name of keptNames(j)) keys.add(jobKey(j.userId, j.id, name))
  }
  for (const a of await db.select({ file: youtubeAudio.file }).from(youtubeAudio).where(and(eq(youtubeAudio.state, 'ready'), isNotNull(youtubeAudio.file))))
    keys.add(`audio/${a.file}`)
  for (const e of await db
    .select({ file: youtubePodcastEpisodes.file })
    .from(youtubePodcastEpisodes)
    .where(and(eq(youtubePodcastEpisodes.state, 'ready'), isNotNull(youtubePodcastEpisodes.file))))
    keys.add(`audio/podcast/${e.file}`)
  // kept videos: the video and its .nfo (a file being fetched again still serves the stored one)
  for (const k of await db.select({ file: youtubeKeptFiles.file }).from(youtubeKeptFiles).where(isNotNull(youtubeKeptFiles.file))) {
    const file = k.file!
    const base = file.replace(/\.[^./]+$/, '')
    const show = file.split('/')[0]
    keys.add(keptKey(file))
    keys.add(keptKey(`${base}.nfo`))
    for (const rel of [`${base}-thumb.jpg`, `${show}/tvshow.nfo`, `${show}/poster.jpg`]) optional.add(keptKey(rel))
  }
  for (const k of optional) if (keys.has(k)) optional.delete(k)
  return { keys, optional, passing }
}

/** Not a kept file: work folders and temporary names (a segment starting with `.`), scaled cover caches, podcast channel art (a local cache). */
const isCacheOrWork = (key: string) =>
  key.split('/').some((s) => s.startsWith('.')) || /^music\/[^/]+\/[^/]+\/(covers|work|edit-[^/]+)\//.test(key) || key.startsWith('audio/art/') || key.endsWith('.before-edit')

/** The differences between the database and the store: `missing` (named, not stored) and `stray` (stored, named by no row). */
export async function compareStore(db: Db, store: Store): Promise<{ missing: string[]; stray: string[] }> {
  const { keys, optional, passing } = await expectedKeys(db)
  const stored = new Set<string>()
  for (const root of KEPT_ROOTS) for await (const o of store.list(root)) stored.add(o.key)
  const missing = [...keys].filter((k) => !stored.has(k)).sort()
  const stray = [...stored].filter((k) => !keys.has(k) && !optional.has(k) && !isCacheOrWork(k) && !passing.some((p) => k.startsWith(p))).sort()
  return { missing, stray }
}
