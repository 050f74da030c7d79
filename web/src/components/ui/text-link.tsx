import { createLink } from '@tanstack/react-router'
import { css } from 'styled-system/css'
import { styled } from 'styled-system/jsx'
import { link } from 'styled-system/recipes'

const accent = css({
  color: 'colorPalette.text',
  textDecoration: 'underline',
  textUnderlineOffset: '0.2em',
  _hover: { color: 'colorPalette.11' },
})

const StyledAnchor = styled('a', link, { defaultProps: { className: accent } })

/** Router link styled as a Park UI text link: `<TextLink to="/terms">Terms of Service</TextLink>`. */
export const TextLink = createLink(StyledAnchor)
