import { createFileRoute } from '@tanstack/react-router'
import { CreateAccountForm } from '~/features/auth/components/create-account-form.tsx'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_public/create')({
  head: () => pageTitle('Create Account'),
  component: CreateAccountForm,
})
