/**
 * Times in a podcast episode's file against times in its video, through the spans cut out of it
 * (SponsorBlock `skip` segments, in the video's seconds, sorted and not overlapping): after a cut,
 * everything is earlier by its length. Used by bookmarks (the web player keeps video time) and by
 * chapters and transcripts (the feed serves file time).
 */
export type Span = readonly [number, number]

/** The file's time of a video time; a time inside a cut is the cut's end (its start in the file). */
export function videoToFile(t: number, spans: readonly Span[]): number {
  let removed = 0
  for (const [start, end] of spans) {
    if (t >= end) removed += end - start
    else if (t > start) return start - removed
    else break
  }
  return t - removed
}

/** The video's time of a file time: each cut before it adds its length back. */
export function fileToVideo(t: number, spans: readonly Span[]): number {
  let v = t
  for (const [start, end] of spans) {
    if (start <= v) v += end - start
    else break
  }
  return v
}
