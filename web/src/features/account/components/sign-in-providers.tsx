import { useQuery } from '@tanstack/react-query'
import { CheckIcon, LinkIcon } from 'lucide-react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { errorText } from '~/lib/api.ts'
import { identitiesQuery, providersQuery } from '../api.ts'

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' })

/** Why linking failed, from `/account?oidc_error=` (src/auth/oidc-routes.ts), as sentences. */
const FAILURES: Record<string, (name: string) => string> = {
  taken: (name) => `This ${name} account is already linked to another Tunefeed account.`,
  state: () => 'The linking took too long or was interrupted. Please try again.',
  denied: () => 'Linking was cancelled.',
  unavailable: (name) => `${name} cannot be reached right now. Please try again later.`,
  failed: (name) => `Linking ${name} did not succeed. Please try again.`,
}

/**
 * Account tab: each configured identity provider, linked (with the date) or with a Link button
 * (GET /api/auth/oidc/{id}/start?link=1, a navigation to the provider and back). Nothing when no
 * provider is configured. See docs/decisions/155-identity-linking.md.
 */
export function SignInProviders({ linked, failure }: { linked?: boolean; failure?: string }) {
  const providers = useQuery(providersQuery)
  const identities = useQuery(identitiesQuery)
  const list = providers.data?.providers ?? []
  if (list.length === 0) return null
  const name = list[0]!.name
  const explain = failure ? (FAILURES[failure] ?? FAILURES.failed!) : undefined
  return (
    <styled.section display="flex" flexDirection="column" gap="3" aria-labelledby="sign-in-providers-title">
      <styled.h2 id="sign-in-providers-title" textStyle="lg" fontWeight="semibold">
        Sign-in Providers
      </styled.h2>
      <styled.p color="fg.muted" textStyle="sm">
        Link a provider to sign in with it as well as with your password. Only a linked provider signs into this account.
      </styled.p>
      {linked && <Alert status="success">{name} is linked: you can sign in with it now.</Alert>}
      {explain && <Alert status="error">{explain(name)}</Alert>}
      {identities.isError && <Alert status="error">{errorText(identities.error)}</Alert>}
      <styled.ul display="flex" flexDirection="column" gap="2" aria-label="Sign-in providers">
        {list.map((p) => {
          const link = identities.data?.identities.find((i) => i.provider === p.id)
          return (
            <styled.li key={p.id} display="flex" alignItems="center" gap="3" p="3" borderWidth="1px" borderRadius="l2" flexWrap="wrap">
              <styled.div flex="1" minW="0" display="flex" flexDirection="column">
                <styled.span fontWeight="medium">{p.name}</styled.span>
                <styled.span color="fg.muted" textStyle="sm">
                  {identities.isPending ? '…' : link ? `Linked ${when.format(new Date(link.createdAt))}` : 'Not linked'}
                </styled.span>
              </styled.div>
              {link ? (
                <styled.span display="inline-flex" alignItems="center" gap="1" color="green.text" textStyle="sm" fontWeight="medium">
                  <CheckIcon aria-hidden size={16} />
                  Linked
                </styled.span>
              ) : (
                <Button variant="outline" size="sm" asChild>
                  <a href={`/api/auth/oidc/${encodeURIComponent(p.id)}/start?link=1`}>
                    <LinkIcon />
                    {`Link ${p.name}`}
                  </a>
                </Button>
              )}
            </styled.li>
          )
        })}
      </styled.ul>
    </styled.section>
  )
}
