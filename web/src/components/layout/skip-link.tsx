import { css } from 'styled-system/css'

/** The id of each shell's `<main>`, the target of the skip link. */
export const MAIN_ID = 'main'

const skip = css({
  position: 'fixed',
  top: '2',
  left: '2',
  zIndex: 'skipLink',
  px: '4',
  py: '2.5',
  borderRadius: 'l2',
  bg: 'bg.default',
  color: 'fg.default',
  fontWeight: 'semibold',
  textStyle: 'sm',
  boxShadow: 'lg',
  // off screen until focused (WCAG 2.4.1): the first tab stop of every page
  transform: 'translateY(-200%)',
  _focusVisible: { transform: 'none' },
  _focus: { transform: 'none' },
})

/** "Skip to main content": the first tab stop, jumping past the header and navigation. */
export function SkipLink() {
  return (
    <a
      href={`#${MAIN_ID}`}
      className={skip}
      onClick={(e) => {
        // focus, not a hash change: the router would treat `#main` as a navigation
        e.preventDefault()
        document.getElementById(MAIN_ID)?.focus()
      }}
    >
      Skip to main content
    </a>
  )
}
