import { css } from 'styled-system/css'
import { Page } from '~/components/layout/page.tsx'
import { TabsContent, TabsIndicator, TabsList, TabsRoot, TabsTrigger } from '~/components/ui/tabs.tsx'
import type { SessionUser } from '~/lib/session.ts'
import { AccountTab } from './account-tab.tsx'
import { ApiTokensTab } from './api-tokens-tab.tsx'
import { FeedTab } from './feed-tab.tsx'
import { LegalTab } from './legal-tab.tsx'
import { MusicPlayersTab } from './music-players-tab.tsx'
import { NotificationsTab } from './notifications-tab.tsx'
import { PodcastsTab } from './podcasts-tab.tsx'
import { SponsorblockTab } from './sponsorblock-tab.tsx'
import { WebdavTab } from './webdav-tab.tsx'

// eight tabs: one row at 1280 px (tighter padding), two on a phone (smaller words); they may
// wrap at any width, the chosen one underlined by itself since the sliding indicator assumes one row
// on each trigger (utilities beat the recipe's size; a textStyle would not)
const tabSize = { px: { base: '1', md: '2' }, fontSize: { base: 'xs', sm: 'sm', md: 'md' } }
const wrapTabs = css({
  flexWrap: 'wrap',
  rowGap: '1',
  columnGap: { base: '0', md: '2' },
  '& > [data-part=trigger][data-selected]': { boxShadow: 'inset 0 -2px 0 0 var(--colors-color-palette-default)' },
  '& > [data-part=indicator]': { display: 'none' },
  // nine tabs take two rows on a phone: the trigger's own size, smaller below md (beats the recipe's class)
  '& > [data-part=trigger]': { fontSize: { base: 'sm', md: 'md' }, px: { base: '1', md: '2' } },
})

/**
 * /account (docs/product.md#account-page): tabs Account (default), WebDAV, API Tokens (docs/product.md#account-settings),
 * Music Players (docs/subsonic.md), Podcasts (docs/product.md#podcasts), Notifications, SponsorBlock (docs/product.md#sponsorblock)
 * and Legal. `tab` and `onTabChange`: the open tab lives in the URL
 * (`?tab=webdav`), so a reload or a shared link keeps it.
 */
export function AccountPage({
  user,
  tab,
  onTabChange,
  providerLinked,
  providerError,
}: { user: SessionUser; tab?: string; onTabChange?: (tab: string) => void; providerLinked?: boolean; providerError?: string }) {
  return (
    <Page title="Account">
      <TabsRoot value={tab ?? 'account'} onValueChange={(d) => onTabChange?.(d.value)} lazyMount unmountOnExit maxW="4xl">
        <TabsList className={wrapTabs}>
          <TabsTrigger value="account" {...tabSize}>Account</TabsTrigger>
          <TabsTrigger value="webdav" {...tabSize}>WebDAV</TabsTrigger>
          <TabsTrigger value="tokens" {...tabSize}>API Tokens</TabsTrigger>
          <TabsTrigger value="players" {...tabSize}>Music Players</TabsTrigger>
          <TabsTrigger value="podcasts" {...tabSize}>Podcasts</TabsTrigger>
          <TabsTrigger value="notifications" {...tabSize}>Notifications</TabsTrigger>
          <TabsTrigger value="sponsorblock" {...tabSize}>SponsorBlock</TabsTrigger>
          <TabsTrigger value="feed" {...tabSize}>Feed</TabsTrigger>
          <TabsTrigger value="legal" {...tabSize}>Legal</TabsTrigger>
          <TabsIndicator />
        </TabsList>
        <TabsContent value="account">
          <AccountTab user={user} providerLinked={providerLinked} providerError={providerError} />
        </TabsContent>
        <TabsContent value="webdav">
          <WebdavTab />
        </TabsContent>
        <TabsContent value="tokens">
          <ApiTokensTab />
        </TabsContent>
        <TabsContent value="players">
          <MusicPlayersTab />
        </TabsContent>
        <TabsContent value="podcasts">
          <PodcastsTab />
        </TabsContent>
        <TabsContent value="notifications">
          <NotificationsTab />
        </TabsContent>
        <TabsContent value="sponsorblock">
          <SponsorblockTab />
        </TabsContent>
        <TabsContent value="feed">
          <FeedTab />
        </TabsContent>
        <TabsContent value="legal">
          <LegalTab />
        </TabsContent>
      </TabsRoot>
    </Page>
  )
}
