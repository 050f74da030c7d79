import type { ComponentProps } from 'react'
import { styled } from 'styled-system/jsx'
import { spinner } from 'styled-system/recipes'

const StyledSpinner = styled('div', spinner)

export type SpinnerProps = ComponentProps<typeof StyledSpinner> & { label?: string }

/** Park UI spinner; announced to screen readers as "Loading" unless `label` says otherwise. */
export function Spinner({ label = 'Loading', ...props }: SpinnerProps) {
  return <StyledSpinner role="status" aria-label={label} borderColor="colorPalette.default" borderBottomColor="transparent" borderInlineStartColor="transparent" {...props} />
}

/** A spinner centred in the available space, for whole pages and panels. */
export function PageSpinner({ label }: { label?: string }) {
  return (
    <styled.div display="flex" alignItems="center" justifyContent="center" minH="60" width="full">
      <Spinner size="lg" label={label} />
    </styled.div>
  )
}
