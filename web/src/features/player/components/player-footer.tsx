import { styled } from 'styled-system/jsx'

/**
 * Contents of the 100 px footer shown while autoplay is on (SPEC 2, Autoplay
 * player). Placeholder: the video engineer replaces it with the real player bar.
 */
export function PlayerFooter() {
  return (
    <styled.div height="full" display="flex" alignItems="center" px="4" color="fg.muted" textStyle="sm">
      Autoplay
    </styled.div>
  )
}
