import { parseFile } from 'music-metadata'
import NodeID3 from 'node-id3'
import type { Artwork } from './artwork.ts'
import type { MusicTags } from './schema.ts'

const none: MusicTags = { title: null, artist: null, album: null, grouping: null, artworkUrl: null }

/** POST /tags: the file's tags; all null when it has none or is not audio. */
export async function readTags(path: string): Promise<MusicTags> {
  try {
    const { common } = await parseFile(path, { duration: false, skipCovers: false })
    const picture = common.picture?.find((p) => /front/i.test(p.type ?? '')) ?? common.picture?.[0]
    const text = (v: string | string[] | undefined) => {
      const s = Array.isArray(v) ? v[0] : v
      return s?.trim() || null
    }
    return {
      title: text(common.title),
      artist: text(common.artist),
      album: text(common.album),
      grouping: text(common.grouping),
      artworkUrl: picture ? `data:${picture.format};base64,${Buffer.from(picture.data).toString('base64')}` : null,
    }
  } catch {
    return none
  }
}

/** Writes the whole ID3v2.3 tag: title, artist, album, grouping (TIT1) and the front cover (APIC type 3). */
export async function writeTags(
  path: string,
  tags: { title: string; artist: string; album: string; grouping: string | null },
  artwork: Artwork | null,
): Promise<void> {
  const id3: NodeID3.Tags = {
    title: tags.title,
    artist: tags.artist,
    album: tags.album,
    ...(tags.grouping ? { contentGroup: tags.grouping } : {}),
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
  await NodeID3.Promise.write(id3, path)
}
