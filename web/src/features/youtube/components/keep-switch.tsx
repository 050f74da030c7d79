import { Switch as ArkSwitch } from '@ark-ui/react/switch'
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useId, useState } from 'react'
import { createStyleContext, styled } from 'styled-system/jsx'
import { input, switchRecipe } from 'styled-system/recipes'
import { Checkbox } from '~/components/ui/checkbox.tsx'
import { Select } from '~/components/ui/select.tsx'
import { errorText } from '~/lib/api.ts'
import { KEEP_HEIGHTS, KEEP_LAST_MAX, type KeepRule, keepRuleQuery, useSetKeepRule } from '../keep-api.ts'

const { withProvider, withContext } = createStyleContext(switchRecipe)
const SwitchRoot = withProvider(ArkSwitch.Root, 'root')
const SwitchControl = withContext(ArkSwitch.Control, 'control')
const SwitchThumb = withContext(ArkSwitch.Thumb, 'thumb')
const SwitchLabel = withContext(ArkSwitch.Label, 'label')

const HEIGHT_OPTIONS = KEEP_HEIGHTS.map((h) => ({ label: `${h}p`, value: String(h) }))
const whole = (text: string, min: number, max: number) => (/^\d{1,3}$/.test(text.trim()) && Number(text) >= min && Number(text) <= max ? Number(text) : null)

/**
 * Keep a followed channel's videos on the server's disk (docs/product.md "Keeping videos"): the
 * switch and its settings (newest N, height, remove watched after D days, Shorts). On the channel
 * page and, `compact`, on each subscriptions card beside the podcast switch.
 */
export function KeepSwitch({ channelId, channelTitle, compact = false }: { channelId: string; channelTitle: string; compact?: boolean }) {
  const rule = useQuery(keepRuleQuery(channelId))
  const save = useSetKeepRule()
  const id = useId()
  const current = rule.data
  const [lastText, setLastText] = useState<string | null>(null)
  const [daysText, setDaysText] = useState<string | null>(null)
  const last = lastText ?? String(current?.keepLast ?? 20)
  const days = daysText ?? (current?.deleteWatchedAfterDays === null || current?.deleteWatchedAfterDays === undefined ? '' : String(current.deleteWatchedAfterDays))
  const lastValue = whole(last, 1, KEEP_LAST_MAX)
  const daysValue = days.trim() === '' ? null : whole(days, 0, 365)
  const lastError = lastText !== null && lastValue === null ? `Enter a whole number from 1 to ${KEEP_LAST_MAX}.` : null
  const daysError = daysText !== null && days.trim() !== '' && daysValue === null ? 'Enter a whole number of days from 0 to 365, or leave it empty.' : null

  const send = (change: Partial<KeepRule>) => {
    if (!current || lastValue === null || (days.trim() !== '' && daysValue === null)) return
    save.mutate(
      { channelId, rule: { ...current, keepLast: lastValue, deleteWatchedAfterDays: daysValue, ...change } },
      {
        onSuccess: () => {
          setLastText(null)
          setDaysText(null)
        },
      },
    )
  }
  const enabled = !!current?.enabled
  const showSettings = enabled || !compact
  const small = compact ? 'xs' : 'sm'

  return (
    <styled.div display="flex" flexDirection="column" gap="1.5" minW="0" data-keep-switch={channelId}>
      <SwitchRoot size={compact ? 'sm' : 'md'} checked={enabled} disabled={rule.isPending || save.isPending} onCheckedChange={(d) => send({ enabled: d.checked })} minH="6">
        <SwitchControl>
          <SwitchThumb />
        </SwitchControl>
        <ArkSwitch.HiddenInput aria-describedby={`${id}-status`} />
        <SwitchLabel textStyle={compact ? 'sm' : 'md'}>
          Keep
          {compact && <styled.span srOnly> videos of {channelTitle} on the server</styled.span>}
        </SwitchLabel>
      </SwitchRoot>
      {showSettings && current && (
        <styled.div display="flex" alignItems="center" gap="3" flexWrap="wrap" textStyle="sm" color="fg.muted" role="group" aria-label={`Keep settings of ${channelTitle}`}>
          <styled.label display="inline-flex" alignItems="center" gap="2" whiteSpace="nowrap" htmlFor={`${id}-last`}>
            Newest
            <styled.input
              id={`${id}-last`}
              className={input({ size: small })}
              type="number"
              inputMode="numeric"
              min={1}
              max={KEEP_LAST_MAX}
              w="4.5rem"
              value={last}
              aria-invalid={lastError ? true : undefined}
              aria-describedby={lastError ? `${id}-last-error` : undefined}
              onChange={(e) => setLastText(e.currentTarget.value)}
              onBlur={() => lastText !== null && send({})}
              onKeyDown={(e) => e.key === 'Enter' && send({})}
            />
            videos
          </styled.label>
          <styled.div display="inline-flex" alignItems="center" gap="2" w="9rem">
            <Select label="Height up to" size="sm" options={HEIGHT_OPTIONS} value={[String(current.maxHeight)]} onValueChange={(v) => v[0] && send({ maxHeight: Number(v[0]) })} />
          </styled.div>
          <styled.label display="inline-flex" alignItems="center" gap="2" whiteSpace="nowrap" htmlFor={`${id}-days`}>
            Remove watched after
            <styled.input
              id={`${id}-days`}
              className={input({ size: small })}
              type="number"
              inputMode="numeric"
              min={0}
              max={365}
              w="4.5rem"
              placeholder="never"
              value={days}
              aria-invalid={daysError ? true : undefined}
              aria-describedby={daysError ? `${id}-days-error` : undefined}
              onChange={(e) => setDaysText(e.currentTarget.value)}
              onBlur={() => daysText !== null && send({})}
              onKeyDown={(e) => e.key === 'Enter' && send({})}
            />
            days
          </styled.label>
          <Checkbox size="sm" checked={current.includeShorts} onCheckedChange={(d) => send({ includeShorts: d.checked === true })}>
            Include Shorts
          </Checkbox>
        </styled.div>
      )}
      {lastError && (
        <styled.p id={`${id}-last-error`} color="fg.error" textStyle="sm" role="alert">
          {lastError}
        </styled.p>
      )}
      {daysError && (
        <styled.p id={`${id}-days-error`} color="fg.error" textStyle="sm" role="alert">
          {daysError}
        </styled.p>
      )}
      {save.isError && (
        <styled.p color="fg.error" textStyle="sm" role="alert">
          Keeping could not be changed: {errorText(save.error)}
        </styled.p>
      )}
      {rule.isError && (
        <styled.p color="fg.error" textStyle="sm" role="alert">
          Whether this channel is kept could not be loaded: {errorText(rule.error)}
        </styled.p>
      )}
      <styled.p id={`${id}-status`} textStyle="sm" color="fg.muted" role="status">
        {enabled ? 'Its newest videos are kept on the server. ' : compact ? '' : 'Turn it on to keep the newest videos on the server, for offline watching and media servers. '}
        {enabled && (
          <Link to="/youtube/kept" style={{ textDecoration: 'underline' }}>
            Open the Kept page
          </Link>
        )}
      </styled.p>
    </styled.div>
  )
}
