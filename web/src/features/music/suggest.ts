import type { Candidate, Lookup } from '#server/music/schema.ts'
import { albumFromTitle } from './album.ts'
import type { MusicFormValues } from './form.ts'

export type { Candidate, Lookup }

/**
 * A link's suggestions (GET /lookup) go into the fields that are still empty;
 * what the user typed is never overwritten. The album counts as empty while it
 * is the one derived from the title (docs/product.md#album-from-title), and is derived again from a
 * suggested title when the link names no album.
 */
export function fillEmpty(values: MusicFormValues, s: Lookup): MusicFormValues {
  const next = { ...values }
  const blank = (v: string) => v.trim() === ''
  if (blank(values.title) && s.title) next.title = s.title
  if (blank(values.artist) && s.artist) next.artist = s.artist
  if (blank(values.album) || values.album === albumFromTitle(values.title)) {
    if (s.album) next.album = s.album
    else if (next.title !== values.title) next.album = albumFromTitle(next.title)
  }
  if (blank(values.grouping) && s.grouping) next.grouping = s.grouping
  if (blank(values.artworkUrl) && s.artworkUrl) next.artworkUrl = s.artworkUrl
  if (blank(values.year) && s.year) next.year = String(s.year)
  if (blank(values.trackNumber) && s.trackNumber) next.trackNumber = String(s.trackNumber)
  return next
}

/** A MusicBrainz candidate the user picked: its tags replace the form's (one click, on purpose). */
export function applyCandidate(values: MusicFormValues, c: Candidate): MusicFormValues {
  return {
    ...values,
    title: c.title || values.title,
    artist: c.artist || values.artist,
    album: c.album ?? values.album,
    year: c.year ? String(c.year) : values.year,
    trackNumber: c.trackNumber ? String(c.trackNumber) : values.trackNumber,
    artworkUrl: c.coverUrl ?? values.artworkUrl,
  }
}

/** YouTube video links, where SponsorBlock's segments apply (the server decides the same way). */
export function isYoutubeLink(value: string): boolean {
  const url = URL.parse(value.trim())
  if (!url) return false
  const host = url.hostname.toLowerCase().replace(/^(www|m|music)\./, '')
  return host === 'youtu.be' || host === 'youtube.com' || host === 'youtube-nocookie.com'
}

/** 0:04, 1:02:03 */
export function clock(seconds: number): string {
  const s = Math.round(seconds)
  const hms = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60]
  return hms[0] ? `${hms[0]}:${String(hms[1]).padStart(2, '0')}:${String(hms[2]).padStart(2, '0')}` : `${hms[1]}:${String(hms[2]).padStart(2, '0')}`
}
