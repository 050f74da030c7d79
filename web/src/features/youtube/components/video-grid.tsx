import type { ReactNode } from 'react'
import { css, cx } from 'styled-system/css'
import { TooltipLayer } from './tooltip-layer.tsx'

// docs/product.md#constants: columns by the grid's own width, as spans of a 12-column grid: 12
// (one card a row) below 800 px, 6 from 800, 4 from 1000, 3 from 1200 and 2
// (six cards) from 2000 (breakpoints xs 400, sm 800, md 1000, lg 1200, xl 2000).
const container = css({ containerType: 'inline-size', width: 'full' })
const cells = css({ display: 'grid', gridTemplateColumns: '1fr', columnGap: '5', rowGap: '7' })
const columns = css({
  '@container (min-width: 800px)': { gridTemplateColumns: 'repeat(2, minmax(0, 1fr))' },
  '@container (min-width: 1000px)': { gridTemplateColumns: 'repeat(3, minmax(0, 1fr))' },
  '@container (min-width: 1200px)': { gridTemplateColumns: 'repeat(4, minmax(0, 1fr))' },
  '@container (min-width: 2000px)': { gridTemplateColumns: 'repeat(6, minmax(0, 1fr))' },
})

const dense = css({ rowGap: '4' })

// a short strip (the video page's 4 related videos): 2 a row from 560 px, all 4 from 900 px, never
// 3 + 1 (instead of `columns`, whose atomic container-query classes would win over these)
const strip = css({
  '@container (min-width: 560px)': { gridTemplateColumns: 'repeat(2, minmax(0, 1fr))' },
  '@container (min-width: 900px)': { gridTemplateColumns: 'repeat(4, minmax(0, 1fr))' },
})

/** The responsive grid of video (and, `compact`, channel) cards; `row`: a short strip laid out evenly. */
export function CardGrid({ children, label, compact, row }: { children: ReactNode; label?: string; compact?: boolean; row?: boolean }) {
  return (
    <TooltipLayer>
      <div className={container}>
        <div className={cx(cells, row ? strip : columns, compact && dense)} role="list" aria-label={label}>
          {children}
        </div>
      </div>
    </TooltipLayer>
  )
}

const cell = css({ minW: '0' })

/** One grid cell (a list item for assistive technology). */
export function CardCell({ children }: { children: ReactNode }) {
  return (
    <div role="listitem" className={cell}>
      {children}
    </div>
  )
}
