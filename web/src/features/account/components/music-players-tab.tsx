import { useQuery } from '@tanstack/react-query'
import { CheckIcon, CopyIcon } from 'lucide-react'
import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { CardBody, CardRoot } from '~/components/ui/card.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { Heading } from '~/components/ui/heading.tsx'
import { PageSpinner } from '~/components/ui/spinner.tsx'
import { errorText } from '~/lib/api.ts'
import { musicPlayersQuery, useCreateAppPassword, useDeleteAppPassword } from '../api.ts'
import { PlayersSupported } from './players-supported.tsx'

/**
 * Account → Music Players: what to type into a Subsonic player (server address, username) and
 * the app password, made or replaced here and shown once. Players that know OpenSubsonic API
 * keys take an API token instead (docs/subsonic.md).
 */
export function MusicPlayersTab() {
  const status = useQuery(musicPlayersQuery)
  const create = useCreateAppPassword()
  const remove = useDeleteAppPassword()
  const [shown, setShown] = useState<string | null>(null)
  const server = window.location.origin
  return (
    <CardRoot>
      <CardBody pt="6" display="flex" flexDirection="column" gap="6">
        <styled.p color="fg.muted" textStyle="sm">
          Listen to your finished tracks in a Subsonic music player on your phone or computer (Symfonium, DSub, Substreamer, Tempo,
          Ultrasonic, Feishin…), with offline sync. Add a Subsonic or OpenSubsonic server in the player and type in:
        </styled.p>
        {status.isPending ? (
          <PageSpinner label="Loading music player settings" />
        ) : status.isError ? (
          <Alert status="error">{errorText(status.error)}</Alert>
        ) : (
          <styled.div display="flex" flexDirection="column" gap="4">
            <CopyField label="Server address" value={server} />
            <CopyField label="Username" value={status.data.username} />
          </styled.div>
        )}
        <styled.section aria-labelledby="players-signin" display="flex" flexDirection="column" gap="3">
          <Heading as="h3" id="players-signin" textStyle="md" fontWeight="semibold">
            Which sign-in to use
          </Heading>
          <styled.ul textStyle="sm" color="fg.muted" listStyleType="disc" pl="5" display="flex" flexDirection="column" gap="1">
            <li>
              Prefer an API key where the player offers one (OpenSubsonic players such as Feishin or Symfonium): make an API token on the API
              Tokens tab and paste it as the player's API key. You can revoke it there at any time.
            </li>
            <li>Otherwise use the username above and an app password made below. Your login password does not work in players.</li>
          </styled.ul>
        </styled.section>
        <styled.section aria-labelledby="players-password" display="flex" flexDirection="column" gap="3">
          <Heading as="h3" id="players-password" textStyle="md" fontWeight="semibold">
            App password
          </Heading>
          <styled.p textStyle="sm" color="fg.muted" role="status">
            {status.data?.hasPassword
              ? 'You have an app password. Making a new one replaces it: players signed in with the old one must be given the new one.'
              : 'You have no app password yet.'}
          </styled.p>
          <styled.div display="flex" gap="3" flexWrap="wrap">
            <Button
              loading={create.isPending}
              onClick={() => create.mutate(undefined, { onSuccess: (made) => setShown(made.password) })}
            >
              {status.data?.hasPassword ? 'Replace App Password' : 'Make App Password'}
            </Button>
            {status.data?.hasPassword && (
              <Button
                variant="outline"
                colorPalette="red"
                color="red.text"
                borderColor="red.a7"
                loading={remove.isPending}
                onClick={() => remove.mutate(undefined, { onSuccess: () => setShown(null) })}
              >
                Remove App Password
              </Button>
            )}
          </styled.div>
          {create.isError && <Alert status="error">{errorText(create.error)}</Alert>}
          {remove.isError && <Alert status="error">{errorText(remove.error)}</Alert>}
          {shown && (
            <styled.div display="flex" flexDirection="column" gap="3" p="4" borderWidth="1px" borderColor="green.a7" bg="green.a2" borderRadius="l2">
              <styled.p textStyle="sm" fontWeight="medium" role="status">
                Copy your app password now: it will not be shown again.
              </styled.p>
              <CopyField label="New app password" value={shown} />
            </styled.div>
          )}
        </styled.section>
        <PlayersSupported />
      </CardBody>
    </CardRoot>
  )
}

/** A read-only value with a copy button. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
      setCopied(true)
    } catch {
      setCopied(false)
    }
  }
  return (
    <styled.div display="flex" gap="3" alignItems="flex-end" flexWrap="wrap">
      {/* the whole width for the address on a phone (Copy goes under it), smaller letters to show more of it */}
      <styled.div flex={{ base: '1 1 100%', sm: '1' }} minW="0">
        <TextField label={label} value={value} readOnly fontFamily="mono" textStyle={{ base: 'xs', sm: 'sm' }} onFocus={(e) => e.currentTarget.select()} />
      </styled.div>
      {/* the visible word starts the name (WCAG 2.5.3: "Copied" once done) */}
      <Button variant="outline" onClick={copy} aria-label={`${copied ? 'Copied' : 'Copy'} ${label.toLowerCase()}`}>
        {copied ? <CheckIcon /> : <CopyIcon />}
        {copied ? 'Copied' : 'Copy'}
      </Button>
    </styled.div>
  )
}
