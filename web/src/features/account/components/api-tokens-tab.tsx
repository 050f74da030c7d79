import { useQuery } from '@tanstack/react-query'
import { CheckIcon, CopyIcon, KeyRoundIcon } from 'lucide-react'
import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { type ApiToken, type CreatedApiToken, createApiTokenBody } from '#server/auth/schema.ts'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { CardBody, CardRoot } from '~/components/ui/card.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { Form } from '~/components/ui/form.tsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { useForm } from '~/hooks/use-form.ts'
import { errorText } from '~/lib/api.ts'
import { apiTokensQuery, useCreateApiToken, useRevokeApiToken } from '../api.ts'

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** Account → API Tokens: create (the token is shown once, with a copy button), list with last use, revoke. */
export function ApiTokensTab() {
  const create = useCreateApiToken()
  const [created, setCreated] = useState<CreatedApiToken | null>(null)
  const form = useForm({ initialValues: { name: '' }, schema: createApiTokenBody, required: ['name'] })
  const submit = form.handleSubmit((data) =>
    create.mutate(data, {
      onSuccess: (token) => {
        setCreated(token)
        form.reset()
      },
    }),
  )
  return (
    <CardRoot>
      <CardBody pt="6" display="flex" flexDirection="column" gap="6">
        <styled.p color="fg.muted" textStyle="sm">
          A token lets a script, an iOS Shortcut or another app use Tunefeed as you, with the header{' '}
          <styled.code fontFamily="mono">Authorization: Bearer &lt;token&gt;</styled.code>. It cannot manage tokens, change your password,
          delete your account or read your WebDAV settings.
        </styled.p>
        <Form onSubmit={submit}>
          <TextField label="Name" placeholder="iPhone Shortcut" autoComplete="off" required {...form.text('name')} />
          {create.isError && <Alert status="error">{errorText(create.error)}</Alert>}
          <FormActions submit="Create Token" submitProps={{ loading: create.isPending }} />
        </Form>
        {created && <NewToken token={created} />}
        <TokenList />
      </CardBody>
    </CardRoot>
  )
}

/** The new token, this once: read-only field and a copy button. */
function NewToken({ token }: { token: CreatedApiToken }) {
  const [copied, setCopied] = useState(false)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token.token)
      setCopied(true)
    } catch {
      setCopied(false)
    }
  }
  return (
    <styled.div display="flex" flexDirection="column" gap="3" p="4" borderWidth="1px" borderColor="green.a7" bg="green.a2" borderRadius="l2">
      <styled.p textStyle="sm" fontWeight="medium" role="status">
        Token “{token.name}” created. Copy it now: it will not be shown again.
      </styled.p>
      <styled.div display="flex" gap="3" alignItems="flex-end" flexWrap="wrap">
        <styled.div flex="1" minW="0">
          <TextField label="New token" value={token.token} readOnly fontFamily="mono" onFocus={(e) => e.currentTarget.select()} />
        </styled.div>
        <Button variant="outline" onClick={copy}>
          {copied ? <CheckIcon /> : <CopyIcon />}
          {copied ? 'Copied' : 'Copy'}
        </Button>
      </styled.div>
    </styled.div>
  )
}

function TokenList() {
  const tokens = useQuery(apiTokensQuery)
  if (tokens.isPending) return null
  if (tokens.isError) return <Alert status="error">{errorText(tokens.error)}</Alert>
  if (tokens.data.tokens.length === 0)
    return (
      <styled.p color="fg.muted" textStyle="sm">
        No tokens yet.
      </styled.p>
    )
  return (
    <styled.ul display="flex" flexDirection="column" gap="2" aria-label="API tokens">
      {tokens.data.tokens.map((token) => (
        <TokenRow key={token.id} token={token} />
      ))}
    </styled.ul>
  )
}

function TokenRow({ token }: { token: ApiToken }) {
  const revoke = useRevokeApiToken()
  return (
    <styled.li display="flex" alignItems="center" gap="3" p="3" borderWidth="1px" borderRadius="l2" flexWrap="wrap">
      <KeyRoundIcon aria-hidden size={18} />
      <styled.div flex="1" minW="0" display="flex" flexDirection="column">
        <styled.span fontWeight="medium" overflowWrap="anywhere">
          {token.name}
        </styled.span>
        <styled.span color="fg.muted" textStyle="sm">
          Created {when.format(new Date(token.createdAt))} ·{' '}
          {token.lastUsedAt ? `Last used ${when.format(new Date(token.lastUsedAt))}` : 'Never used'}
        </styled.span>
        {revoke.isError && (
          <styled.span color="fg.error" textStyle="sm" role="alert">
            {errorText(revoke.error)}
          </styled.span>
        )}
      </styled.div>
      <Button
        variant="outline"
        colorPalette="red"
        color="red.text"
        borderColor="red.a7"
        size="sm"
        aria-label={`Revoke ${token.name}`}
        loading={revoke.isPending}
        onClick={() => revoke.mutate(token.id)}
      >
        Revoke
      </Button>
    </styled.li>
  )
}
