import { useQuery } from '@tanstack/react-query'
import { LogInIcon } from 'lucide-react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { providersQuery } from '../api.ts'

/** Reasons the server gives in `/login?oidc_error=` (src/auth/oidc-routes.ts), as sentences. */
const FAILURES: Record<string, (name: string) => string> = {
  unverified: (name) => `Your e-mail address at ${name} is not verified. Verify it there, then sign in again.`,
  state: () => 'The sign-in took too long or was interrupted. Please try again.',
  denied: () => 'Sign-in was cancelled.',
  unavailable: (name) => `${name} cannot be reached right now. Please try again later.`,
  failed: (name) => `Sign-in with ${name} did not succeed. Please try again.`,
  // docs/decisions/155-identity-linking.md: an existing account is reached only once its owner linked the provider
  exists: (name) =>
    `An account with this e-mail already exists. Sign in with your password, then link ${name} on the Account page.`,
  disabled: () => 'Account is disabled.',
}

/** "Sign in with {OIDC_NAME}" when a provider is configured, and why the last attempt failed. */
export function ProviderSignIn({ next, failure, divider = true }: { next?: string; failure?: string; divider?: boolean }) {
  const providers = useQuery(providersQuery)
  const list = providers.data?.providers ?? []
  if (list.length === 0) return null
  const explain = failure ? FAILURES[failure] : undefined
  return (
    <styled.div display="flex" flexDirection="column" gap="3">
      {explain && <Alert status="error">{explain(list[0]!.name)}</Alert>}
      {list.map((p) => (
        <Button key={p.id} variant="outline" width="full" asChild>
          <a href={`/api/auth/oidc/${encodeURIComponent(p.id)}/start${next ? `?next=${encodeURIComponent(next)}` : ''}`}>
            <LogInIcon />
            Sign in with {p.name}
          </a>
        </Button>
      ))}
      {divider && (
        <styled.div display="flex" alignItems="center" gap="3" color="fg.muted" textStyle="sm" aria-hidden>
          <styled.hr flex="1" />
          or
          <styled.hr flex="1" />
        </styled.div>
      )}
    </styled.div>
  )
}
