import { Suspense, lazy } from 'react'

// loaded only once autoplay is turned on: it stays out of the first page's JavaScript
const AutoplayPlayer = lazy(() => import('./autoplay-player.tsx'))

/**
 * Contents of the 100 px footer shown while autoplay is on (docs/product.md#autoplay-player, Autoplay
 * player): the player bar, the queue panel and the media player itself.
 */
export function PlayerFooter() {
  return (
    <Suspense fallback={null}>
      <AutoplayPlayer />
    </Suspense>
  )
}
