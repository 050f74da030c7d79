import { useQuery } from '@tanstack/react-query'
import { CheckIcon, CopyIcon, KeyRoundIcon } from 'lucide-react'
import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { z } from 'zod'
import { type ApiToken, type CreatedApiToken, createApiTokenBody, TOKEN_MAX_DAYS, tokenExpiresAt } from '#server/auth/schema.ts'
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

/** `YYYY-MM-DD` of a local day. */
const dayOf = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`

/** A day picked in the date field means "through that day" here: the end of that local day, as the server's ISO date-time. */
function endOfLocalDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number)
  const end = new Date(y!, m! - 1, d!, 23, 59, 59, 999)
  return Number.isNaN(end.getTime()) ? day : end.toISOString()
}

/** The form: the name, and an optional day (empty: the token does not expire), checked by the server's own rules. */
const tokenForm = z.object({
  name: createApiTokenBody.shape.name,
  expiresAt: z
    .string()
    .transform((day) => (day ? endOfLocalDay(day) : null))
    .pipe(tokenExpiresAt.nullable()),
})

/** Account → API Tokens: create with an optional expiry (the token is shown once, with a copy button), list with last use and expiry, revoke. */
export function ApiTokensTab() {
  const create = useCreateApiToken()
  const [created, setCreated] = useState<CreatedApiToken | null>(null)
  const form = useForm({ initialValues: { name: '', expiresAt: '' }, schema: tokenForm, required: ['name'] })
  const today = new Date()
  const latest = new Date(today.getTime() + (TOKEN_MAX_DAYS - 1) * 24 * 60 * 60 * 1000)
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
          delete your account or read your WebDAV settings. Resetting or changing your password revokes your tokens.
        </styled.p>
        <Form onSubmit={submit}>
          <TextField label="Name" placeholder="iPhone Shortcut" autoComplete="off" required {...form.text('name')} />
          <TextField
            label="Expires"
            type="date"
            min={dayOf(today)}
            max={dayOf(latest)}
            helperText="Optional: the token stops working after this day. Leave it empty for a token that does not expire."
            {...form.text('expiresAt')}
          />
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
          {token.lastUsedAt ? `Last used ${when.format(new Date(token.lastUsedAt))}` : 'Never used'} · <Expiry at={token.expiresAt} />
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

/** 'Expires <date>', 'Expired <date>' (refused from then on) or 'Does not expire'. */
function Expiry({ at }: { at: string | null }) {
  if (!at) return <>Does not expire</>
  const date = new Date(at)
  if (date.getTime() <= Date.now())
    return (
      <styled.span color="fg.error" fontWeight="medium">
        Expired {when.format(date)}
      </styled.span>
    )
  return <>Expires {when.format(date)}</>
}
