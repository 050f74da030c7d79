import type { ICommonTagsResult } from 'music-metadata'
import type NodeID3 from 'node-id3'
import type { Artwork } from './artwork.ts'
import { MAX_ARTWORK_BYTES, type MusicTags } from './schema.ts'

// the tag libraries are loaded when a file is read or written, not at start-up (docs/decisions/311)
const nodeId3 = async () => (await import('node-id3')).default

const none: MusicTags = { title: null, artist: null, album: null, grouping: null, artworkUrl: null }

/**
 * POST /tags: the file's tags; all null when it has none or is not audio.
 * Embedded artwork over MAX_ARTWORK_BYTES (what a job accepts) is left out:
 * an ID3v2 tag larger than that is read without its pictures, and a larger
 * picture in another container is not turned into a (4/3 larger) data URI.
 */
export async function readTags(path: string): Promise<MusicTags> {
  try {
    const skipCovers = (await id3v2Size(path)) > MAX_ARTWORK_BYTES + 1024 * 1024
    const { parseFile } = await import('music-metadata')
    return tagsOf((await parseFile(path, { duration: false, skipCovers })).common)
  } catch {
    return none
  }
}

/** The tags in the first bytes of a file (a direct link's head); null when there are none. */
export async function readTagsFromBuffer(head: Uint8Array, mimeType?: string): Promise<MusicTags | null> {
  try {
    const { parseBuffer } = await import('music-metadata')
    const tags = tagsOf((await parseBuffer(head, { mimeType, size: undefined }, { duration: false, skipCovers: true })).common)
    return tags.title || tags.artist || tags.album ? tags : null
  } catch {
    return null
  }
}

function tagsOf(common: ICommonTagsResult): MusicTags {
  const picture = [common.picture?.find((p) => /front/i.test(p.type ?? '')), common.picture?.[0]].find(
    (p) => p && p.data.length <= MAX_ARTWORK_BYTES,
  )
  const text = (v: string | string[] | undefined) => {
    const s = Array.isArray(v) ? v[0] : v
    return s?.trim() || null
  }
  const year = common.year && common.year >= 1000 && common.year <= 9999 ? common.year : undefined
  const trackNumber = common.track?.no && common.track.no > 0 ? common.track.no : undefined
  return {
    title: text(common.title),
    artist: text(common.artist),
    album: text(common.album),
    grouping: text(common.grouping),
    artworkUrl: picture ? `data:${picture.format};base64,${Buffer.from(picture.data).toString('base64')}` : null,
    // only when present: a file without them answers as before
    ...(year ? { year } : {}),
    ...(trackNumber ? { trackNumber } : {}),
  }
}

/** The size an ID3v2 tag at the start of the file declares (0 without one). */
async function id3v2Size(path: string): Promise<number> {
  const head = new Uint8Array(await Bun.file(path).slice(0, 10).arrayBuffer())
  if (head.length < 10 || head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) return 0
  // four 7-bit "syncsafe" bytes
  return ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f)
}


/** What a finished MP3 is tagged with. */
export interface TrackTags {
  title: string
  artist: string
  album: string
  grouping: string | null
  year?: number | null
  trackNumber?: number | null
  trackCount?: number | null
}

/** TRCK as `n/total` where the total is known, else `n`. */
export const trackField = (n: number, total?: number | null) => (total ? `${n}/${total}` : String(n))

/**
 * Writes the whole ID3v2.3 tag: title, artist, album, grouping (TIT1), year
 * (TYER, and TDRC for ID3v2.4 readers), track (TRCK), the front cover (APIC
 * type 3) and ReplayGain 2.0 (TXXX:REPLAYGAIN_TRACK_GAIN/PEAK).
 */
export async function writeTags(
  path: string,
  tags: TrackTags,
  artwork: Artwork | null,
  replayGain: Record<string, string> | null = null,
): Promise<void> {
  const id3: NodeID3.Tags = {
    title: tags.title,
    artist: tags.artist,
    album: tags.album,
    ...(tags.grouping ? { contentGroup: tags.grouping } : {}),
    ...(tags.year ? { year: String(tags.year), recordingTime: String(tags.year) } : {}),
    ...(tags.trackNumber ? { trackNumber: trackField(tags.trackNumber, tags.trackCount) } : {}),
    ...(replayGain ? { userDefinedText: Object.entries(replayGain).map(([description, value]) => ({ description, value })) } : {}),
    ...(artwork
      ? {
          image: {
            mime: artwork.mime,
            type: { id: 3, name: 'front cover' },
            description: 'Cover',
            imageBuffer: Buffer.from(artwork.bytes),
          },
        }
      : {}),
  }
  // rejects on failure (the file-path form resolves with nothing)
  await (await nodeId3()).Promise.write(id3, path)
}

/** The ReplayGain TXXX frames already in a file (kept when its tags are rewritten). */
export async function readReplayGain(path: string): Promise<Record<string, string> | null> {
  const tags = await (await nodeId3()).Promise.read(path, { include: ['TXXX'] })
  const frames = (tags.userDefinedText ?? []).filter((f) => /^REPLAYGAIN_/i.test(f.description))
  return frames.length ? Object.fromEntries(frames.map((f) => [f.description, f.value])) : null
}
