import { Slider as ArkSlider } from '@ark-ui/react/slider'
import { css, cx } from 'styled-system/css'
import { slider } from 'styled-system/recipes'
import { useId } from 'react'
import { arrowTarget, formatTime } from '../logic.ts'
import { marksDescription, type Segment, segmentMarks } from '../segments.ts'

export type ProgressSliderProps = {
  /** 0 to 100 (docs/product.md#autoplay-player). */
  percent: number
  playedSeconds: number
  duration: number
  disabled?: boolean
  /** SponsorBlock segments: the `show` ones are marked on the track (docs/product.md#sponsorblock). */
  segments?: readonly Segment[]
  onSeeking(percent: number): void
  onSeek(percent: number): void
}

const thumbLabel = css({
  position: 'absolute',
  bottom: 'calc(100% + 2px)',
  left: '50%',
  transform: 'translateX(-50%)',
  px: '1.5',
  borderRadius: 'l1',
  bg: 'gray.a3',
  textStyle: 'xs',
  fontVariantNumeric: 'tabular-nums',
  whiteSpace: 'nowrap',
  pointerEvents: 'none',
  lineHeight: '1.4',
})

const marks = css({
  display: 'flex',
  justifyContent: 'space-between',
  textStyle: 'xs',
  color: 'fg.muted',
  fontVariantNumeric: 'tabular-nums',
  lineHeight: '1',
  mt: '0.5',
})

/**
 * docs/product.md#autoplay-player: the progress slider, compact for the 100 px footer: 0 to 100 percent,
 * marks 0:00 and the total duration under the track, and a label with the
 * played time riding on the thumb.
 */
const s = slider({ size: 'sm' })
const rootClass = cx(s.root, css({ gap: '0', pt: '4' }))
const controlClass = cx(s.control, css({ cursor: 'pointer' }))
// a 24 px target (WCAG 2.5.8) drawn as a 14 px dot
const thumbClass = cx(
  s.thumb,
  css({
    width: '6',
    height: '6',
    bg: 'transparent',
    borderWidth: '0',
    boxShadow: 'none',
    _before: { content: '""', position: 'absolute', inset: '5px', borderRadius: 'full', bg: 'bg.default', borderWidth: '2px', borderColor: 'colorPalette.default', boxShadow: 'sm' },
  }),
)
// a `show` segment: a band over the track in a colour apart from the played range
const segmentMark = css({ position: 'absolute', top: '0', bottom: '0', bg: 'green.9', borderRadius: 'l1', pointerEvents: 'none' })
const hidden = css({ srOnly: true })

export function ProgressSlider({ percent, playedSeconds, duration, disabled, segments, onSeeking, onSeek }: ProgressSliderProps) {
  const played = formatTime(playedSeconds)
  const describedBy = useId()
  const marked = segmentMarks(segments ?? [], duration)
  const description = marked.length ? marksDescription(marked.map((m) => m.segment)) : ''
  return (
    <ArkSlider.Root
      className={rootClass}
      min={0}
      max={100}
      step={0.1}
      value={[percent]}
      disabled={disabled}
      aria-label={['Progress']}
      getAriaValueText={() => `${played} of ${formatTime(duration)}`}
      onValueChange={(d) => onSeeking(d.value[0] ?? 0)}
      onValueChangeEnd={(d) => onSeek(d.value[0] ?? 0)}
    >
      <ArkSlider.Control className={controlClass}>
        <ArkSlider.Track className={s.track}>
          <ArkSlider.Range className={s.range} />
          {marked.map((m) => (
            <span key={m.segment.uuid} className={segmentMark} style={{ left: `${m.left}%`, width: `${m.width}%` }} data-testid="segment-mark" aria-hidden />
          ))}
        </ArkSlider.Track>
        <ArkSlider.Thumb
          index={0}
          className={thumbClass}
          aria-describedby={description ? describedBy : undefined}
          // capture: runs before the slider's own 0.1 % step and stops it
          onKeyDownCapture={(e) => {
            const target = arrowTarget(percent, duration, e.key)
            if (target === undefined) return
            e.preventDefault()
            e.stopPropagation()
            onSeek(target)
          }}
        >
          <span className={thumbLabel} data-testid="played-time">
            {played}
          </span>
          <ArkSlider.HiddenInput />
        </ArkSlider.Thumb>
      </ArkSlider.Control>
      {description && (
        <span id={describedBy} className={hidden}>
          {description}
        </span>
      )}
      <div className={marks} aria-hidden>
        <span data-testid="mark-start">0:00</span>
        <span data-testid="mark-end">{formatTime(duration)}</span>
      </div>
    </ArkSlider.Root>
  )
}
