/**
 * ReplayGain 2.0 from the conversion pass: ffmpeg's `ebur128` filter runs on
 * a branch of the decoded audio (asplit), so the measurement costs no second
 * decode; its summary on stderr gives the integrated loudness and the sample
 * peak. Gain is against −18 LUFS (ReplayGain 2.0's reference).
 */
export interface Loudness {
  /** Integrated loudness, LUFS. */
  integrated: number
  /** Sample peak, dBFS. */
  peakDb: number
}

export const REFERENCE_LUFS = -18

/** `[<input>]...` → `[out]` plus the measuring branch (for `-filter_complex`). */
export function measuringGraph(input: string, chain: string[] = []): string {
  const pre = chain.length ? `${chain.join(',')},` : ''
  return `[${input}]${pre}asplit=2[out][measure];[measure]ebur128=peak=sample:framelog=verbose,anullsink`
}

/** Reads the ebur128 summary from ffmpeg's stderr, line by line. */
export class LoudnessReader {
  private inSummary = false
  private integrated: number | null = null
  private peakDb: number | null = null

  line(line: string) {
    // a graph configured twice prints an empty summary first: the last one counts
    if (/\] Summary:\s*$/.test(line)) {
      this.inSummary = true
      this.integrated = null
      this.peakDb = null
      return
    }
    if (!this.inSummary) return
    const i = /^\s*I:\s+(-?[\d.]+|-inf)\s+LUFS/.exec(line)
    if (i && this.integrated === null) this.integrated = i[1] === '-inf' ? -Infinity : Number(i[1])
    const p = /^\s*Peak:\s+(-?[\d.]+|-inf)\s+dBFS/.exec(line)
    if (p && this.peakDb === null) this.peakDb = p[1] === '-inf' ? -Infinity : Number(p[1])
  }

  /** Null when the summary was missing or the audio was silent (no gain to give). */
  result(): Loudness | null {
    if (this.integrated === null || this.peakDb === null) return null
    if (!Number.isFinite(this.integrated) || this.integrated <= -70) return null
    return { integrated: this.integrated, peakDb: this.peakDb }
  }
}

/** The two TXXX values: gain "−3.20 dB" (against −18 LUFS), peak as a linear ratio "0.891251". */
export function replayGainTags(l: Loudness): { REPLAYGAIN_TRACK_GAIN: string; REPLAYGAIN_TRACK_PEAK: string } {
  const gain = REFERENCE_LUFS - l.integrated
  const peak = Number.isFinite(l.peakDb) ? 10 ** (l.peakDb / 20) : 0
  return {
    REPLAYGAIN_TRACK_GAIN: `${gain >= 0 ? '+' : ''}${gain.toFixed(2)} dB`,
    REPLAYGAIN_TRACK_PEAK: peak.toFixed(6),
  }
}
