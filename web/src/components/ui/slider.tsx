import { Slider as ArkSlider } from '@ark-ui/react/slider'
import type { ComponentProps, ReactNode } from 'react'
import { createStyleContext, styled } from 'styled-system/jsx'
import { slider } from 'styled-system/recipes'

const { withProvider, withContext } = createStyleContext(slider)

const Root = withProvider(ArkSlider.Root, 'root')
const Label = withContext(ArkSlider.Label, 'label')
const ValueText = withContext(ArkSlider.ValueText, 'valueText')
const Control = withContext(ArkSlider.Control, 'control')
const Track = withContext(ArkSlider.Track, 'track')
const Range = withContext(ArkSlider.Range, 'range')
const Thumb = withContext(ArkSlider.Thumb, 'thumb')
const MarkerGroup = withContext(ArkSlider.MarkerGroup, 'markerGroup')
const Marker = withContext(ArkSlider.Marker, 'marker')

export type SliderProps = ComponentProps<typeof Root> & {
  label?: ReactNode
  /** Text shown beside the label (e.g. the played time). */
  valueText?: ReactNode
  /** Labelled marks under the track, e.g. 0:00 and the total duration. */
  marks?: { value: number; label?: ReactNode }[]
}

/**
 * Park UI slider; `value` is an array (one entry per thumb):
 *
 *     <Slider aria-label={['Progress']} value={[pct]} onValueChange={(d) => seek(d.value[0])} marks={[{value:0,label:'0:00'}]} />
 */
export function Slider({ label, valueText, marks, ...props }: SliderProps) {
  return (
    <Root {...props}>
      {(label || valueText) && (
        <styled.div display="flex" justifyContent="space-between" gap="2">
          {label && <Label>{label}</Label>}
          {valueText && <ValueText>{valueText}</ValueText>}
        </styled.div>
      )}
      <Control>
        <Track>
          <Range />
        </Track>
        <ArkSlider.Context>
          {(api) =>
            api.value.map((_, index) => (
              <Thumb key={index} index={index}>
                <ArkSlider.HiddenInput />
              </Thumb>
            ))
          }
        </ArkSlider.Context>
      </Control>
      {marks && marks.length > 0 && (
        <MarkerGroup>
          {marks.map((m) => (
            <Marker key={m.value} value={m.value}>
              {m.label}
            </Marker>
          ))}
        </MarkerGroup>
      )}
    </Root>
  )
}
