import { Page } from '~/components/layout/page.tsx'
import { TabsContent, TabsIndicator, TabsList, TabsRoot, TabsTrigger } from '~/components/ui/tabs.tsx'
import type { SessionUser } from '~/lib/session.ts'
import { JobsTab } from './jobs-tab.tsx'
import { MailTab } from './mail-tab.tsx'
import { SchedulesTab } from './schedules-tab.tsx'
import { StatusTab } from './status-tab.tsx'
import { UsersTab } from './users-tab.tsx'

/** /admin (docs/product.md#admin-screens), admins only: tabs Status (default), Jobs, Schedules, Users, Mail. */
/** `tab` and `onTabChange`: the open tab lives in the URL (`?tab=users`). */
export function AdminPage({ user, tab, onTabChange }: { user: SessionUser; tab?: string; onTabChange?: (tab: string) => void }) {
  return (
    <Page title="Admin">
      <TabsRoot value={tab ?? 'status'} onValueChange={(d) => onTabChange?.(d.value)} lazyMount unmountOnExit>
        <TabsList>
          <TabsTrigger value="status">Status</TabsTrigger>
          <TabsTrigger value="jobs">Jobs</TabsTrigger>
          <TabsTrigger value="schedules">Schedules</TabsTrigger>
          <TabsTrigger value="users">Users</TabsTrigger>
          <TabsTrigger value="mail">Mail</TabsTrigger>
          <TabsIndicator />
        </TabsList>
        <TabsContent value="status">
          <StatusTab />
        </TabsContent>
        <TabsContent value="jobs">
          <JobsTab />
        </TabsContent>
        <TabsContent value="schedules">
          <SchedulesTab />
        </TabsContent>
        <TabsContent value="users">
          <UsersTab />
        </TabsContent>
        <TabsContent value="mail">
          <MailTab email={user.email} />
        </TabsContent>
      </TabsRoot>
    </Page>
  )
}
