import { useQuery } from '@tanstack/react-query'
import { CheckIcon, LinkIcon, UnlinkIcon } from 'lucide-react'
import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx'
import { errorText } from '~/lib/api.ts'
import { identitiesQuery, providersQuery, useUnlinkIdentity } from '../api.ts'

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
 * provider is configured. A linked one has Unlink, after a confirmation (refused, in words, while it is the
 * account's only way in). See docs/decisions/155-identity-linking.md and 212-unlinking-a-provider.md.
 */
export function SignInProviders({ linked, failure }: { linked?: boolean; failure?: string }) {
  const providers = useQuery(providersQuery)
  const identities = useQuery(identitiesQuery)
  const unlink = useUnlinkIdentity()
  const [unlinking, setUnlinking] = useState<{ id: string; name: string } | null>(null)
  const [unlinked, setUnlinked] = useState<string | null>(null)
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
      {linked && !unlinked && <Alert status="success">{name} is linked: you can sign in with it now.</Alert>}
      {unlinked && <Alert status="success">{unlinked} is unlinked: sign in with your password from now on.</Alert>}
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
                <styled.div display="flex" alignItems="center" gap="3" flexWrap="wrap">
                  <styled.span display="inline-flex" alignItems="center" gap="1" color="green.text" textStyle="sm" fontWeight="medium">
                    <CheckIcon aria-hidden size={16} />
                    Linked
                  </styled.span>
                  <Button variant="outline" size="sm" onClick={() => setUnlinking({ id: p.id, name: p.name })}>
                    <UnlinkIcon />
                    {`Unlink ${p.name}`}
                  </Button>
                </styled.div>
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
      <ConfirmDialog
        open={unlinking !== null}
        onClose={() => setUnlinking(null)}
        title={`Unlink ${unlinking?.name ?? ''}`}
        description={`${unlinking?.name ?? 'The provider'} will no longer sign into this account. You can link it again at any time.`}
        confirm="Unlink"
        pending={unlink.isPending}
        error={unlink.isError ? errorText(unlink.error) : null}
        onExitComplete={() => unlink.reset()}
        onConfirm={() =>
          unlinking &&
          unlink.mutate(unlinking.id, {
            onSuccess: () => {
              setUnlinked(unlinking.name)
              setUnlinking(null)
            },
          })
        }
      />
    </styled.section>
  )
}
