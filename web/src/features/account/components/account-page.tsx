import { Page } from '~/components/layout/page.tsx'
import { TabsContent, TabsIndicator, TabsList, TabsRoot, TabsTrigger } from '~/components/ui/tabs.tsx'
import type { SessionUser } from '~/lib/session.ts'
import { AccountTab } from './account-tab.tsx'
import { ApiTokensTab } from './api-tokens-tab.tsx'
import { LegalTab } from './legal-tab.tsx'
import { NotificationsTab } from './notifications-tab.tsx'
import { WebdavTab } from './webdav-tab.tsx'

/** /account (docs/product.md#account-page): tabs Account (default), WebDAV, API Tokens (docs/product.md#account-settings), Notifications and Legal. */
/** `tab` and `onTabChange`: the open tab lives in the URL (`?tab=webdav`), so a reload or a shared link keeps it. */
export function AccountPage({ user, tab, onTabChange }: { user: SessionUser; tab?: string; onTabChange?: (tab: string) => void }) {
  return (
    <Page title="Account">
      <TabsRoot value={tab ?? 'account'} onValueChange={(d) => onTabChange?.(d.value)} lazyMount unmountOnExit maxW="2xl">
        <TabsList>
          <TabsTrigger value="account">Account</TabsTrigger>
          <TabsTrigger value="webdav">WebDAV</TabsTrigger>
          <TabsTrigger value="tokens">API Tokens</TabsTrigger>
          <TabsTrigger value="notifications">Notifications</TabsTrigger>
          <TabsTrigger value="legal">Legal</TabsTrigger>
          <TabsIndicator />
        </TabsList>
        <TabsContent value="account">
          <AccountTab user={user} />
        </TabsContent>
        <TabsContent value="webdav">
          <WebdavTab />
        </TabsContent>
        <TabsContent value="tokens">
          <ApiTokensTab />
        </TabsContent>
        <TabsContent value="notifications">
          <NotificationsTab />
        </TabsContent>
        <TabsContent value="legal">
          <LegalTab />
        </TabsContent>
      </TabsRoot>
    </Page>
  )
}
