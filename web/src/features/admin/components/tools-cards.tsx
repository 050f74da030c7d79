import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { errorText, type OkBody } from '~/lib/api.ts'
import type { api } from '~/lib/api.ts'
import { useRemoveCookies, useRollbackYtdlp, useRunCanary, useSetCookies, useUpdateYtdlp } from '../api.ts'
import { Badge, Fact, FactCard, when } from './parts.tsx'
import { PotProviderFact } from './youtube-pace.tsx'

type Status = OkBody<Awaited<ReturnType<typeof api.admin.status.$get>>>
const onError = (err: unknown) => notify.error('Action failed', errorText(err))

/** yt-dlp (version, managed or not, last check, update now, roll back), ffmpeg and the JS runtime. */
export function ToolsCard({ tools }: { tools: Status['tools'] }) {
  const update = useUpdateYtdlp()
  const rollback = useRollbackYtdlp()
  const canaryRun = useRunCanary()
  const y = tools.ytDlp
  const canary = tools.canary
  return (
    <FactCard
      title="Tools"
      actions={
      <styled.div display="flex" gap="2" flexWrap="wrap" pt="1">
        <Button size="sm" variant="outline" disabled={y.channel === 'off'} loading={update.isPending} onClick={() => update.mutate(undefined, { onError, onSuccess: () => notify.success('Checking for a newer yt-dlp') })}>
          Update now
        </Button>
        <Button
          size="sm"
          variant="outline"
          disabled={!y.previousVersion}
          loading={rollback.isPending}
          onClick={() => rollback.mutate(undefined, { onError, onSuccess: (r) => notify.success(`yt-dlp ${r.version} is in use again`) })}
        >
          Roll back{y.previousVersion ? ` to ${y.previousVersion}` : ''}
        </Button>
        <Button size="sm" variant="outline" loading={canaryRun.isPending} onClick={() => canaryRun.mutate(undefined, { onError, onSuccess: () => notify.success('The canary runs now') })}>
          Run canary now
        </Button>
      </styled.div>
      }
    >
      <Fact label="yt-dlp">
        <span data-testid="ytdlp-in-use">
          {y.version ?? <Badge tone="bad">Missing</Badge>} {y.version && `(${ORIGINS[y.origin ?? ''] ?? 'not found'}${y.releasedOn ? `, released ${y.releasedOn}` : ''})`}
        </span>
        {y.warning && (
          <styled.span display="block" color="fg.error" data-testid="ytdlp-warning">
            {y.warning}
          </styled.span>
        )}
      </Fact>
      <Fact label="Updates">
        {y.channel === 'off' ? 'Off (YTDLP_PATH or YTDLP_UPDATE=off)' : `${y.channel} channel, `}
        {y.channel !== 'off' && (y.checkedAt ? `last checked ${when(y.checkedAt)}` : 'never checked')}
        {y.origin === 'release' && y.updatedAt && ` · installed ${when(y.updatedAt)}`}
        {y.lastError && (
          <styled.span display="block" color="fg.error">
            {y.origin === 'release' ? 'The last update failed: ' : 'No release installed yet: '}
            {y.lastError}
          </styled.span>
        )}
      </Fact>
      <Fact label="Canary">
        {canary.ok === null ? (
          'Not run yet'
        ) : canary.ok ? (
          <>
            <Badge tone="ok">Passed</Badge> {when(canary.checkedAt)}: YouTube downloads work
          </>
        ) : (
          <>
            <Badge tone="bad">Failed</Badge> {when(canary.checkedAt)}
            {canary.lastError && <styled.span display="block" color="fg.error">{canary.lastError}</styled.span>}
            {canary.toolOutput && <RawText summary="What yt-dlp said" text={canary.toolOutput} />}
          </>
        )}
        <styled.span display="block" color="fg.muted" wordBreak="break-all">
          {canary.url}
        </styled.span>
      </Fact>
      <Fact label="ffmpeg">
        {tools.ffmpeg.version ?? <Badge tone="bad">Missing</Badge>} {tools.ffmpeg.source && `(${tools.ffmpeg.source})`}
        {tools.ffmpeg.advice && <styled.span display="block" color="fg.muted">{tools.ffmpeg.advice}</styled.span>}
      </Fact>
      <Fact label="JavaScript runtime">
        <JsRuntimeFact js={tools.jsRuntime} />
      </Fact>
      <PotProviderFact pot={tools.potProvider} plugin={tools.potPlugin} />
    </FactCard>
  )
}

/** Where the yt-dlp in use really comes from (tools.ytDlp.origin). */
const ORIGINS: Record<string, string> = {
  release: 'a signed release the app installed',
  system: "the system's yt-dlp",
  setting: 'set by YTDLP_PATH',
}

/** A tool's own words, one step away behind a disclosure. */
function RawText({ summary, text }: { summary: string; text: string }) {
  return (
    <styled.details mt="1" textStyle="sm">
      <styled.summary cursor="pointer" color="fg.muted" width="fit-content" _focusVisible={{ outline: '2px solid', outlineColor: 'colorPalette.default', outlineOffset: '2px' }}>
        {summary}
      </styled.summary>
      <styled.code display="block" mt="1" p="2" bg="gray.a3" borderRadius="l2" whiteSpace="pre-wrap" wordBreak="break-word" fontSize="xs">
        {text}
      </styled.code>
    </styled.details>
  )
}

const RUNTIME_NAMES: Record<string, string> = { deno: 'Deno', node: 'Node', quickjs: 'QuickJS', bun: 'Bun' }
const RUNTIME_SOURCES: Record<string, string> = {
  setting: 'set by YTDLP_JS_RUNTIME',
  path: 'found on PATH',
  package: 'from the deno npm package',
  managed: 'a copy the app downloaded',
}
/** The sentence /api/health says without a supported runtime (docs/api.md). */
const RUNTIME_NEEDED = 'YouTube downloads need Deno 2.3 or later, or Node 22 or later.'

/** The runtime yt-dlp solves YouTube's challenges with, in words; unsupported or missing says what YouTube needs. */
function JsRuntimeFact({ js }: { js: Status['tools']['jsRuntime'] }) {
  if (!js.name)
    return (
      <>
        <Badge tone="bad">Missing</Badge> None found.
        <styled.span display="block" color="fg.error">
          {RUNTIME_NEEDED}
        </styled.span>
      </>
    )
  return (
    <>
      <Badge tone={js.supported ? 'ok' : 'bad'}>{js.supported ? 'Supported' : 'Not supported'}</Badge> {RUNTIME_NAMES[js.name] ?? js.name} {js.version ?? '(version unknown)'} (
      {RUNTIME_SOURCES[js.source ?? ''] ?? js.source})
      <styled.span display="block" color="fg.muted">
        {js.path}
      </styled.span>
      {!js.supported && (
        <styled.span display="block" color="fg.error">
          {RUNTIME_NEEDED}
        </styled.span>
      )}
    </>
  )
}

/** The cookies handed to yt-dlp: never shown, only counted; set, replace or remove. */
export function CookiesCard({ cookies }: { cookies: Status['cookies'] }) {
  const set = useSetCookies()
  const remove = useRemoveCookies()
  const [file, setFile] = useState<File | null>(null)
  return (
    <FactCard
      title="Cookies"
      actions={
      <styled.div display="flex" flexDirection="column" gap="2">
        <styled.p id="cookies-warning" textStyle="sm" color="fg.muted">
          Every user's lookups and downloads act as the account these cookies belong to: use a separate account made for
          Tunefeed, never your own. Links to that account's private lists (Watch later, Liked videos, history,
          subscriptions, feeds) are refused for everyone but administrators.
        </styled.p>
        <styled.label htmlFor="cookies-file" textStyle="sm" fontWeight="medium">
          Cookies file (Netscape cookies.txt, at most 1 MB)
        </styled.label>
        <styled.input
          id="cookies-file"
          aria-describedby="cookies-warning"
          type="file"
          accept=".txt,text/plain"
          textStyle="sm"
          _file={{ me: '3', px: '3', py: '1.5', borderWidth: '1px', borderColor: 'border', borderRadius: 'l2', bg: 'gray.a3', color: 'fg.default', fontWeight: 'medium', cursor: 'pointer' }}
          _focusVisible={{ outline: '2px solid', outlineColor: 'colorPalette.default', outlineOffset: '2px' }}
          onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        {set.isError && <Alert status="error">{errorText(set.error)}</Alert>}
        <styled.div display="flex" gap="2" flexWrap="wrap">
          <Button
            size="sm"
            disabled={!file}
            loading={set.isPending}
            onClick={async () => file && set.mutate(await file.text(), { onSuccess: (r) => notify.success(`Cookies set: ${r.count} for ${r.domains.join(', ')}`) })}
          >
            {cookies.set ? 'Replace cookies' : 'Set cookies'}
          </Button>
          <Button size="sm" variant="outline" colorPalette="red" color="red.text" disabled={!cookies.set} loading={remove.isPending} onClick={() => remove.mutate(undefined, { onError, onSuccess: () => notify.success('Cookies removed') })}>
            Remove cookies
          </Button>
        </styled.div>
      </styled.div>
      }
    >
      <Fact label="In use">{cookies.set ? `${cookies.count} cookies for ${cookies.domains.join(', ')} (set ${when(cookies.updatedAt)})` : 'None'}</Fact>
    </FactCard>
  )
}
