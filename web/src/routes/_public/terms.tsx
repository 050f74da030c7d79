import { createFileRoute } from '@tanstack/react-router'
import { TermsPage } from '~/features/legal/components/terms-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_public/terms')({
  head: () => pageTitle('Terms of Service'),
  component: TermsPage,
})
