import { Pagination as ArkPagination } from '@ark-ui/react/pagination'
import { ChevronLeftIcon, ChevronRightIcon } from 'lucide-react'
import { css, cx } from 'styled-system/css'
import { pagination } from 'styled-system/recipes'
import { Button, IconButton } from './button.tsx'

export type PaginationProps = {
  /** 1-based current page. */
  page: number
  totalPages: number
  onPageChange: (page: number) => void
  siblingCount?: number
}

const layout = css({ flexWrap: 'wrap', justifyContent: 'center', alignItems: 'center' })

/** Page buttons for lists answered as `{..., totalPages}`; hidden when there is one page or none. */
export function Pagination({ page, totalPages, onPageChange, siblingCount = 1 }: PaginationProps) {
  if (totalPages <= 1) return null
  // recipe classes applied by hand: `page` is also a CSS property, so a styled root would eat it
  const s = pagination()
  return (
    <ArkPagination.Root
      className={cx(s.root, layout)}
      count={totalPages}
      pageSize={1}
      page={page}
      siblingCount={siblingCount}
      onPageChange={(d) => onPageChange(d.page)}
    >
      <ArkPagination.PrevTrigger className={s.prevTrigger} asChild>
        <IconButton variant="ghost" size="sm" aria-label="Previous page">
          <ChevronLeftIcon />
        </IconButton>
      </ArkPagination.PrevTrigger>
      <ArkPagination.Context>
        {(api) =>
          api.pages.map((p, index) =>
            p.type === 'page' ? (
              <ArkPagination.Item key={index} {...p} className={s.item} asChild>
                <Button variant="outline" size="sm">
                  {p.value}
                </Button>
              </ArkPagination.Item>
            ) : (
              <ArkPagination.Ellipsis key={index} index={index} className={s.ellipsis}>
                &#8230;
              </ArkPagination.Ellipsis>
            ),
          )
        }
      </ArkPagination.Context>
      <ArkPagination.NextTrigger className={s.nextTrigger} asChild>
        <IconButton variant="ghost" size="sm" aria-label="Next page">
          <ChevronRightIcon />
        </IconButton>
      </ArkPagination.NextTrigger>
    </ArkPagination.Root>
  )
}
