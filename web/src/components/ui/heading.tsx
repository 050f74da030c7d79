import type { ComponentProps } from 'react'
import { styled } from 'styled-system/jsx'
import { text } from 'styled-system/recipes'

const StyledHeading = styled('h1', text, { defaultProps: { variant: 'heading' } })

/** Page and section headings: `<Heading as="h2" size="xl">`. Defaults to h1, size 2xl. */
export function Heading(props: ComponentProps<typeof StyledHeading>) {
  return <StyledHeading size="2xl" {...props} />
}
