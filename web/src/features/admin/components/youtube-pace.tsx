import { styled } from 'styled-system/jsx'
import type { OkBody } from '~/lib/api.ts'
import type { api } from '~/lib/api.ts'
import { Badge, Fact, when } from './parts.tsx'

type Status = OkBody<Awaited<ReturnType<typeof api.admin.status.$get>>>

/** The YouTube gate in words (docs/decisions/145-youtube-gate.md): pacing, this hour's count, and any bot-check pause. */
export function PaceFacts({ pace }: { pace: Status['youtube']['pace'] }) {
  return (
    <>
      <Fact label="Pacing">
        Downloads and look-ups start at least {pace.sleepSeconds} seconds apart
        {pace.maxPerHour > 0 ? `, at most ${pace.maxPerHour} an hour` : ''}; {pace.lastHour} in the last hour.
      </Fact>
      <Fact label="Bot checks">
        {pace.pausedUntil ? (
          <span data-testid="youtube-paused">
            <Badge tone="bad">Paused</Badge> YouTube asked this server to confirm it is not a bot, so YouTube downloads are paused until{' '}
            {when(pace.pausedUntil)}; waiting jobs start after that and other sites go on.
            {pace.pauseCause && <styled.span display="block" color="fg.muted">What YouTube said: {pace.pauseCause}</styled.span>}
          </span>
        ) : (
          <>
            <Badge tone="ok">No pause</Badge> A bot check would pause YouTube downloads for a while.
          </>
        )}
      </Fact>
    </>
  )
}

/** The PO-token provider (YTDLP_POT_PROVIDER_URL): off, answering, or what is wrong, in words. */
export function PotProviderFact({ pot, plugin }: { pot: Status['tools']['potProvider']; plugin: Status['tools']['potPlugin'] }) {
  return (
    <Fact label="PO tokens">
      {!pot ? (
        'Off: set YTDLP_POT_PROVIDER_URL to a bgutil PO-token provider to help against bot checks.'
      ) : pot.ok && plugin?.installed ? (
        <span data-testid="pot-provider">
          <Badge tone="ok">Working</Badge> The PO-token provider at {pot.url} answers (version {pot.version}, checked {when(pot.checkedAt)}).
        </span>
      ) : (
        <styled.span data-testid="pot-provider" color="fg.error">
          <Badge tone="bad">Not working</Badge> {pot.lastError ?? (pot.ok ? `The PO-token provider at ${pot.url} answers.` : `The PO-token provider at ${pot.url} has not been asked yet.`)}
          {plugin?.error && <styled.span display="block">{plugin.error}</styled.span>}
        </styled.span>
      )}
    </Fact>
  )
}
