import { useQuery } from '@tanstack/react-query'
import { styled } from 'styled-system/jsx'
import { statusQuery } from '../api.ts'
import { Badge, Fact, FactCard, Loaded, when } from './parts.tsx'

/**
 * The tools and cookies parts of the status come with the downloads work
 * (yt-dlp, ffmpeg, cookies); shown when the server reports them.
 */
type ToolsPart = {
  tools?: {
    ytDlp?: { version: string | null; path: string | null; managed: boolean; channel: string | null; checkedAt: string | null; updatedAt: string | null; lastError: string | null }
    ffmpeg?: { version: string | null; path: string | null; source: string | null }
    jsRuntime?: { name: string | null; version: string | null }
  }
  cookies?: { set: boolean; updatedAt: string | null; count: number; domains: string[] }
}

/** Status tab: version, database and queue, tools, YouTube mode and quota. */
export function StatusTab() {
  const query = useQuery(statusQuery)
  return (
    <Loaded query={query}>
      {(status) => {
        const { tools, cookies } = status as typeof status & ToolsPart
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
            </FactCard>
            <FactCard title="YouTube">
              <Fact label="Mode">{status.youtube.mode === 'api' ? 'API key' : 'Feeds only (no API key)'}</Fact>
              <Fact label="Quota today">
                {quota.units} of {quota.budget} units ({quota.day}, Pacific time)
              </Fact>
              <Fact label="State">
                {quota.exhausted ? (
                  <>
                    <Badge tone="bad">Stopped</Badge> {quota.cause} Resumes {when(quota.resetsAt)}.
                  </>
                ) : (
                  <Badge tone="ok">Working</Badge>
                )}
              </Fact>
            </FactCard>
            {tools && (
              <FactCard title="Tools">
                {tools.ytDlp && (
                  <Fact label="yt-dlp">
                    {tools.ytDlp.version ?? 'missing'} {tools.ytDlp.managed ? `(managed, ${tools.ytDlp.channel})` : '(as installed)'}
                    {tools.ytDlp.checkedAt && <> · checked {when(tools.ytDlp.checkedAt)}</>}
                    {tools.ytDlp.lastError && <styled.span color="fg.error"> · {tools.ytDlp.lastError}</styled.span>}
                  </Fact>
                )}
                {tools.ffmpeg && (
                  <Fact label="ffmpeg">
                    {tools.ffmpeg.version ?? 'missing'} {tools.ffmpeg.source && `(${tools.ffmpeg.source})`}
                  </Fact>
                )}
                {tools.jsRuntime && <Fact label="JS runtime">{[tools.jsRuntime.name, tools.jsRuntime.version].filter(Boolean).join(' ') || 'none'}</Fact>}
              </FactCard>
            )}
            {cookies && (
              <FactCard title="Cookies">
                <Fact label="Cookies">
                  {cookies.set ? `${cookies.count} cookies for ${cookies.domains.join(', ')} (set ${when(cookies.updatedAt)})` : 'None'}
                </Fact>
              </FactCard>
            )}
          </styled.div>
        )
      }}
    </Loaded>
  )
}
