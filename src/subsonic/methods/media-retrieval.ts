import { sendFile, sendStored } from '../../lib/send-file.ts'
import { fetchJobFiles, jobKey } from '../../music/stored.ts'
import { inside, jobDir } from '../../music/files.ts'
import { coverFile } from '../covers.ts'
import { parseCoverId, parseEpisodeId, parsePodcastChannelId, parseSongId } from '../ids.ts'
import { stat } from 'node:fs/promises'
import { ErrorGeneric } from '../errors.ts'
import { notFound, SubsonicError } from '../params.ts'
import { contentTypeOf, takeSlot, transcode, wantedOf } from '../transcode.ts'
import { type Call, type Method, oneAlbum, oneArtist, oneSong } from './call.ts'
import { podcastsOf } from './podcast-queries.ts'
import { sendEpisode } from './podcasts.ts'
import { coverJob } from './queries.ts'
import { channelArt } from '../../youtube/listen/art.ts'

/** Media retrieval: stream, download, cover art. */

/**
 * `maxBitRate`, `format` and `timeOffset` asking for something else than the stored file:
 * transcoded when a slot is free (transcode.ts); null → the stored file as it is.
 */
async function maybeTranscode(call: Call, path: string, storedRate: number | null, fetchFile: () => Promise<void>): Promise<Response | null> {
  const { params, ctx } = call
  const format = params.get('format')
  if (format && !['mp3', 'opus', 'raw'].includes(format)) throw new SubsonicError(ErrorGeneric, `Unknown format ${format}: use mp3, opus or raw.`)
  const offset = Number(params.get('timeOffset') ?? 0)
  if (!Number.isFinite(offset) || offset < 0) throw new SubsonicError(ErrorGeneric, 'Parameter timeOffset must be a number of seconds.')
  const wanted = wantedOf({ format, maxBitRate: params.optionalInt('maxBitRate'), timeOffset: offset }, storedRate)
  if (!wanted || !ctx.tools.ffmpeg) return null
  if (call.c.req.method === 'HEAD') return new Response(null, { status: 200, headers: { 'Content-Type': contentTypeOf(wanted.format), 'Accept-Ranges': 'none' } })
  const release = takeSlot(call.user.id, ctx.env.TRANSCODE_CONCURRENCY)
  if (!release) return null
  // STORAGE=s3: ffmpeg reads a copy fetched into the job's folder (kept there as a cache, as cover sizes are)
  await fetchFile().catch(() => {})
  if (!(await stat(path).catch(() => null))?.isFile()) {
    release()
    throw notFound('Song file')
  }
  return transcode(ctx.tools.ffmpeg, path, wanted, release, call.c.req.raw.signal)
}

export async function sendSong(call: Call, download: boolean): Promise<Response> {
  const id = call.params.required('id')
  if (parseEpisodeId(id)) return sendEpisode(call, id, download)
  const row = await oneSong(call, id)
  const path = inside(jobDir(call.ctx.env.DATA_DIR, call.user.id, row.job_id), row.file)
  const filename = row.file.slice(row.file.lastIndexOf('/') + 1)
  if (!download) {
    const fetchFile = () => fetchJobFiles(call.ctx, { userId: call.user.id, id: row.job_id }, [row.file])
    const transcoded = await maybeTranscode(call, path, row.bit_rate, fetchFile)
    if (transcoded) return transcoded
  }
  // never a redirect here: many players follow none (S3_PRESIGN is for /api routes)
  const res = await sendStored(call.c.req.raw, call.ctx.storage.store, jobKey(call.user.id, row.job_id, row.file), { filename, type: 'audio/mpeg' }).catch(() => {
    throw notFound('Song file')
  })
  if (!download) res.headers.delete('Content-Disposition')
  return res
}

/** A podcast channel's artwork (the feed's, made once: listen/art.ts). */
async function podcastArt(call: Call, channelId: string) {
  const [p] = await podcastsOf(call.ctx.db, call.user.id, channelId)
  const path = p ? await channelArt(call.ctx, p.channelId, p.thumbnail, call.c.req.raw.signal) : null
  if (!path) throw notFound('Cover art')
  const res = await sendFile(call.c.req.raw, path, { filename: `${channelId}.jpg`, type: 'image/jpeg', inline: true })
  res.headers.set('Cache-Control', 'private, max-age=86400')
  return res
}

export const mediaRetrieval: Record<string, Method> = {
  stream: (call) => sendSong(call, false),
  download: (call) => sendSong(call, true),

  getCoverArt: async (call) => {
    const { params, ctx, user } = call
    const id = params.required('id')
    const size = params.optionalInt('size')
    const channelId = parsePodcastChannelId(id)
    if (channelId) return podcastArt(call, channelId)
    let jobId = parseCoverId(id) ?? parseSongId(id)?.jobId ?? null
    if (!jobId && id.startsWith('al-')) jobId = (await oneAlbum(call, id)).cover_job
    else if (!jobId && id.startsWith('ar-')) jobId = (await oneArtist(call, id)).cover_job
    const job = jobId ? await coverJob(ctx.db, user.id, jobId) : undefined
    if (!jobId || !job?.artworkFile || !job.completed) throw notFound('Cover art')
    const file = await coverFile(ctx, { userId: user.id, jobId, artworkFile: job.artworkFile }, size && size > 0 ? size : undefined)
    if (!file) throw notFound('Cover art')
    const res = await sendFile(call.c.req.raw, file.path, { filename: `cover.${file.path.split('.').pop()}`, type: file.type })
    res.headers.delete('Content-Disposition')
    res.headers.set('Cache-Control', 'private, max-age=86400')
    return res
  },
}
