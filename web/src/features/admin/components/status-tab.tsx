import { useQuery } from '@tanstack/react-query'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { statusQuery } from '../api.ts'
import { Badge, Fact, FactCard, Loaded, when } from './parts.tsx'
import { CookiesCard, ToolsCard } from './tools-cards.tsx'
import { PaceFacts } from './youtube-pace.tsx'

/** Status tab: version, database and queue, tools, YouTube mode and quota. */
export function StatusTab() {
  const query = useQuery(statusQuery)
  return (
    <Loaded query={query}>
      {(status) => {
        const quota = status.youtube.quota
        return (
          <styled.div display="grid" gridTemplateColumns={{ base: '1fr', lg: '1fr 1fr' }} gap="4">
            <FactCard title="Server">
              <Fact label="Version">{status.version}</Fact>
              <Fact label="Database">
                {status.database.kind === 'pglite' ? 'Embedded (PGlite)' : 'PostgreSQL'} · {status.database.version}
              </Fact>
              <Fact label="Queue">
                {status.queue.waiting} waiting · {status.queue.active} active · {status.queue.failed} failed
              </Fact>
              <Fact label="Disk">
                {status.disk.freeBytes === null ? (
                  'Unknown'
                ) : (
                  <>
                    {status.disk.low ? <Badge tone="bad">Low</Badge> : <Badge tone="ok">OK</Badge>} {bytes(status.disk.freeBytes)} free of{' '}
                    {bytes(status.disk.totalBytes ?? 0)}
                  </>
                )}
              </Fact>
              <Fact label="Kept videos">
                {status.disk.keep.freeBytes === null ? (
                  'Unknown'
                ) : (
                  <>
                    {status.disk.keep.low ? <Badge tone="bad">Waiting</Badge> : <Badge tone="ok">OK</Badge>} {bytes(status.disk.keep.freeBytes)} free, keeping
                    needs {bytes(status.disk.keep.minFreeBytes)}
                  </>
                )}
              </Fact>
              {status.disk.warning && <Alert status="error">{status.disk.warning}</Alert>}
              {status.proxy.untrustedForwarded && (
                <Alert status="info" title="Proxy not trusted">
                  Requests arrive through a proxy (X-Forwarded-For) but TRUST_PROXY is off: everyone seems to come from the proxy's address, so sign-in limits count them all
                  together. Set TRUST_PROXY=1 when a proxy you run is in front.
                </Alert>
              )}
              {status.disk.keep.warning && <Alert status="error">{status.disk.keep.warning}</Alert>}
            </FactCard>
            {status.mediaServers.length > 0 && (
              <FactCard title="Media servers">
                {status.mediaServers.map((m) => (
                  <Fact key={m.kind} label={m.kind === 'jellyfin' ? 'Jellyfin' : 'Plex'}>
                    {m.ok === null ? <Badge>Not told yet</Badge> : m.ok ? <Badge tone="ok">OK</Badge> : <Badge tone="bad">Failed</Badge>} {m.url}
                    {m.notifiedAt && <> · told {when(m.notifiedAt)}</>}
                    {m.lastError && <> · {m.lastError}</>}
                  </Fact>
                ))}
              </FactCard>
            )}
            <FactCard title="YouTube">
              <Fact label="Mode">{status.youtube.mode === 'api' ? 'API key' : 'Feeds only (no API key)'}</Fact>
              <Fact label="Quota today">
                {quota.units} of {quota.budget} units ({quota.day}, Pacific time)
              </Fact>
              <Fact label="State">
                <DownloadsState downloads={status.youtube.downloads} />
              </Fact>
              {quota.exhausted && (
                <Fact label="Data API">
                  <Badge tone="bad">Stopped</Badge> {quota.cause} Resumes {when(quota.resetsAt)}.
                </Fact>
              )}
              <PaceFacts pace={status.youtube.pace} />
              <Fact label="WebSub">
                {status.youtube.websub.enabled ? (
                  <>
                    {status.youtube.websub.subscribed} channels pushed from {status.youtube.websub.hub}
                    {status.youtube.websub.lastPushAt && <> · last push {when(status.youtube.websub.lastPushAt)}</>}
                    {status.youtube.websub.lastError && <> · {status.youtube.websub.lastError}</>}
                  </>
                ) : (
                  'Off (PUBLIC_URL is not a public address): channels are polled hourly'
                )}
              </Fact>
            </FactCard>
            <FactCard title="Music">
              <Fact label="Lyrics look-up">
                {status.lyrics.url ? (
                  <>
                    <Badge tone="ok">On</Badge> When a track finishes without lyrics in its file, its artist, title, album and duration are sent to{' '}
                    <styled.code fontFamily="mono">{status.lyrics.url}</styled.code>. Set LYRICS_URL=off to turn it off.
                  </>
                ) : (
                  <>
                    <Badge>Off</Badge> LYRICS_URL=off: nothing is sent to a lyrics service.
                  </>
                )}
              </Fact>
            </FactCard>
            <ToolsCard tools={status.tools} />
            <CookiesCard cookies={status.cookies} />
          </styled.div>
        )
      }}
    </Loaded>
  )
}

const DOWNLOAD_STATES: Record<string, { label: string; tone: 'ok' | 'bad' }> = {
  working: { label: 'Working', tone: 'ok' },
  paused: { label: 'Paused', tone: 'bad' },
  failing: { label: 'Not working', tone: 'bad' },
  unknown: { label: 'Not checked', tone: 'bad' },
}

/** YouTube downloads in one word, as the server derives it from the tools, the pause and the canary. */
function DownloadsState({ downloads }: { downloads: { state: string; reason: string | null } }) {
  const s = DOWNLOAD_STATES[downloads.state] ?? { label: downloads.state, tone: 'bad' as const }
  return (
    <span data-testid="youtube-state">
      <Badge tone={s.tone}>{s.label}</Badge> {downloads.reason}
    </span>
  )
}

const bytes = (n: number) => (n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GB` : `${Math.round(n / 1024 ** 2)} MB`)
