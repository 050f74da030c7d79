import { PlayIcon, SquareIcon } from 'lucide-react'
import { useSnapshot } from 'valtio'
import { Button } from '~/components/ui/button.tsx'
import { playerStore, setAutoplay } from '~/player/store.ts'

/** docs/product.md#videos-page: 'Enable AutoPlay' / 'Stop AutoPlay' for the list on this page. */
export function AutoplayButton() {
  const { autoplay } = useSnapshot(playerStore)
  return (
    <Button variant={autoplay ? 'outline' : 'solid'} onClick={() => setAutoplay(!autoplay)} aria-pressed={autoplay}>
      {autoplay ? <SquareIcon /> : <PlayIcon />}
      {autoplay ? 'Stop AutoPlay' : 'Enable AutoPlay'}
    </Button>
  )
}
