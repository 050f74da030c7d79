import { useQuery } from '@tanstack/react-query'
import { css } from 'styled-system/css'
import { styled } from 'styled-system/jsx'
import { TextLink } from '~/components/ui/text-link.tsx'
import { groupsQuery } from '~/lib/feed-settings-api.ts'

// pills at least 32 px high (WCAG 2.5.8 asks 24), the chosen one filled; the row scrolls sideways on phones
const chip = css({
  display: 'inline-flex',
  alignItems: 'center',
  flexShrink: '0',
  minH: '8',
  px: '3.5',
  borderRadius: 'full',
  borderWidth: '1px',
  borderColor: 'border.default',
  bg: 'gray.a2',
  color: 'fg.default',
  textStyle: 'sm',
  fontWeight: 'medium',
  cursor: 'pointer',
  whiteSpace: 'nowrap',
  _hover: { bg: 'gray.a4' },
  _focusVisible: { outline: '2px solid', outlineColor: 'colorPalette.default', outlineOffset: '2px' },
  '&[aria-pressed=true]': { bg: 'fg.default', color: 'bg.default', borderColor: 'fg.default' },
})

/**
 * The row of groups above the feed (docs/product.md#groups): "All channels", then each of the
 * person's groups; choosing one filters the feed to its channels. Shown once there is a group.
 */
export function GroupChips({ value, onChange }: { value?: string; onChange(group: string | undefined): void }) {
  const groups = useQuery(groupsQuery)
  const list = groups.data?.groups ?? []
  if (!list.length) return null
  // a group that no longer exists (deleted in another tab): the feed answers 404, "All channels" is the way back
  return (
    <styled.div display="flex" alignItems="center" gap="2" overflowX="auto" py="1" px="0.5" mx="-0.5" role="group" aria-label="Channel groups">
      <button type="button" className={chip} aria-pressed={!value} onClick={() => onChange(undefined)}>
        All channels
      </button>
      {list.map((g) => (
        <button key={g.id} type="button" className={chip} aria-pressed={value === g.id} onClick={() => onChange(g.id)}>
          {g.name}
        </button>
      ))}
      <styled.span flexShrink="0" textStyle="sm" ps="2">
        <TextLink to="/youtube/subscriptions" hash="groups">
          Edit groups
        </TextLink>
      </styled.span>
    </styled.div>
  )
}
