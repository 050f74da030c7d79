import type { ReactNode } from 'react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { CardBody, CardRoot, CardTitle } from '~/components/ui/card.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { errorText } from '~/lib/api.ts'

/** Local date and time of an ISO timestamp, or a dash. */
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '–')

/** The toast of a row action that failed. */
export const actionFailed = (err: unknown) => notify.error('Action failed', errorText(err))

/** One button of a table row: its text, its accessible name (naming the row), in red when `danger`. */
export type RowAction = { label: string; name: string; onClick: () => void; loading?: boolean; danger?: boolean }

/** A table row's last cell: its action buttons, small and outlined, side by side (or wrapping, with `wrap`). */
export function ActionsCell({ actions, wrap = false }: { actions: RowAction[]; wrap?: boolean }) {
  return (
    <td>
      <styled.div display="flex" gap="2" flexWrap={wrap ? 'wrap' : { base: 'wrap', md: 'nowrap' }}>
        {actions.map((a) => (
          <Button key={a.label} size="xs" variant="outline" {...(a.danger ? { colorPalette: 'red', color: 'red.text' } : {})} aria-label={a.name} loading={a.loading} onClick={a.onClick}>
            {a.label}
          </Button>
        ))}
      </styled.div>
    </td>
  )
}

/** A titled card of label/value rows (a description list), and buttons under it. */
export function FactCard({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <CardRoot>
      <CardBody pt="5" display="flex" flexDirection="column" gap="3">
        <CardTitle textStyle="md">{title}</CardTitle>
        <styled.dl display="grid" gridTemplateColumns={{ base: '1fr', sm: 'minmax(8rem, max-content) 1fr' }} columnGap="6" rowGap="2" textStyle="sm">
          {children}
        </styled.dl>
        {actions}
      </CardBody>
    </CardRoot>
  )
}

export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <styled.dt color="fg.muted" fontWeight="medium">
        {label}
      </styled.dt>
      <styled.dd overflowWrap="anywhere">{children}</styled.dd>
    </>
  )
}

/** A loading spinner, the error, or the content once the query has data. */
export function Loaded<T>({ query, children }: { query: { data?: T; error: unknown; isPending: boolean }; children: (data: T) => ReactNode }) {
  if (query.data !== undefined) return <>{children(query.data)}</>
  if (query.error) return <Alert status="error">{errorText(query.error)}</Alert>
  return <Spinner label="Loading" />
}

/**
 * An admin table. On a phone each row becomes a card (label: value lines, its actions
 * wrapping at the bottom) rather than a wide table whose actions sit off-screen; give
 * each `<td>` a `data-label` naming its column.
 */
export const Table = styled('table', {
  base: {
    width: 'full',
    textStyle: 'sm',
    borderCollapse: 'collapse',
    '& th': { textAlign: 'start', color: 'fg.muted', fontWeight: 'semibold', py: '2', px: '3', borderBottomWidth: '1px' },
    '& td': { py: '2', px: '3', borderBottomWidth: '1px', verticalAlign: 'top' },
    mdDown: {
      display: 'block',
      '& tbody': { display: 'flex', flexDirection: 'column', gap: '3' },
      '& thead': { position: 'absolute', width: '1px', height: '1px', overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' },
      '& tr': { display: 'flex', flexDirection: 'column', gap: '1', borderWidth: '1px', borderRadius: 'l2', p: '3' },
      '& td, & tbody th': { display: 'flex', gap: '3', p: '0', borderBottomWidth: '0 !important', overflowWrap: 'anywhere' },
      '& td[data-label]::before': { content: 'attr(data-label)', color: 'fg.muted', fontWeight: 'medium', minW: '24', flexShrink: '0' },
    },
  },
})

/** Horizontal scrolling for wide tables on small screens (focusable so keyboard users can scroll it). */
export function TableScroller({ label, children }: { label: string; children: ReactNode }) {
  return (
    <styled.div overflowX="auto" tabIndex={0} role="region" aria-label={label} _focusVisible={{ outline: '2px solid', outlineColor: 'colorPalette.default' }}>
      {children}
    </styled.div>
  )
}

export const Badge = styled('span', {
  base: { display: 'inline-block', px: '2', py: '0.5', borderRadius: 'l2', textStyle: 'xs', fontWeight: 'medium', bg: 'gray.a3', color: 'fg.default', me: '1' },
  variants: {
    tone: {
      ok: { bg: 'green.a3', color: 'green.text' },
      bad: { bg: 'red.a3', color: 'red.text' },
      info: { bg: 'iris.a3', color: 'iris.text' },
    },
  },
})
