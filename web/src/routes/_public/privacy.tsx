import { createFileRoute } from '@tanstack/react-router'
import { PrivacyPage } from '~/features/legal/components/privacy-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_public/privacy')({
  head: () => pageTitle('Privacy Policy'),
  component: PrivacyPage,
})
