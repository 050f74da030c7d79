import { SegmentGroup } from '@ark-ui/react/segment-group'
import type { ReactNode } from 'react'
import { css, cx } from 'styled-system/css'

export type SegmentedOption = { value: string; label: ReactNode; icon?: ReactNode; disabled?: boolean }

export type SegmentedControlProps = {
  /** Accessible name of the group (radiogroup). */
  'aria-label': string
  options: SegmentedOption[]
  value: string
  onValueChange: (value: string) => void
  size?: 'sm' | 'md'
}

const root = css({
  position: 'relative',
  display: 'inline-flex',
  alignItems: 'stretch',
  gap: '1',
  p: '1',
  borderRadius: 'l3',
  bg: 'bg.subtle',
  borderWidth: '1px',
  borderColor: 'border.subtle',
  width: { base: 'full', sm: 'auto' },
  alignSelf: { base: 'stretch', sm: 'flex-start' },
})
const indicator = css({
  width: 'var(--width)',
  height: 'var(--height)',
  top: 'var(--top)',
  borderRadius: 'l2',
  bg: 'bg.default',
  boxShadow: 'xs',
  borderWidth: '1px',
  borderColor: 'border.default',
  zIndex: '0',
})
const item = css({
  position: 'relative',
  zIndex: '1',
  flex: { base: '1', sm: 'initial' },
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  gap: '2',
  px: '4',
  borderRadius: 'l2',
  color: 'fg.muted',
  fontWeight: 'medium',
  cursor: 'pointer',
  userSelect: 'none',
  transition: 'color 0.15s ease',
  _hover: { color: 'fg.default' },
  _checked: { color: 'fg.default' },
  _focusVisible: { outline: '2px solid', outlineColor: 'colorPalette.default', outlineOffset: '1px' },
  _disabled: { color: 'fg.disabled', cursor: 'not-allowed' },
  '& svg': { width: '4', height: '4' },
})
const sizes = { sm: css({ h: '8', textStyle: 'sm' }), md: css({ h: '9', textStyle: 'sm' }) }

/**
 * A pill-shaped choice between a few options (radio semantics, arrow keys move):
 *
 *     <SegmentedControl aria-label="Source" value={v} onValueChange={setV}
 *       options={[{ value: 'url', label: 'Link' }, { value: 'file', label: 'File' }]} />
 */
export function SegmentedControl({ options, value, onValueChange, size = 'md', ...props }: SegmentedControlProps) {
  return (
    <SegmentGroup.Root
      className={root}
      value={value}
      onValueChange={(d) => d.value && onValueChange(d.value)}
      orientation="horizontal"
      aria-label={props['aria-label']}
    >
      <SegmentGroup.Indicator className={indicator} />
      {options.map((o) => (
        <SegmentGroup.Item key={o.value} value={o.value} disabled={o.disabled} className={cx(item, sizes[size])}>
          {o.icon}
          <SegmentGroup.ItemText>{o.label}</SegmentGroup.ItemText>
          <SegmentGroup.ItemControl />
          <SegmentGroup.ItemHiddenInput />
        </SegmentGroup.Item>
      ))}
    </SegmentGroup.Root>
  )
}
