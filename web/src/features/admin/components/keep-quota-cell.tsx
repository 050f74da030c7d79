import { useId, useState } from 'react'
import { styled } from 'styled-system/jsx'
import { input } from 'styled-system/recipes'
import { Button } from '~/components/ui/button.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { usePatchUser } from '../api.ts'
import { actionFailed } from './parts.tsx'

const formatBytes = (n: number) => (n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GB` : `${(n / 1024 ** 2).toFixed(1)} MB`)

/** A user's kept-video usage and keep quota in MB (empty: no limit), saved with PATCH /admin/users/{id}. */
export function KeepQuotaCell({ user }: { user: { id: string; email: string; keepQuotaMb: number | null; keepUsedBytes: number } }) {
  const patch = usePatchUser()
  const id = useId()
  const [text, setText] = useState<string | null>(null)
  const value = text ?? (user.keepQuotaMb === null ? '' : String(user.keepQuotaMb))
  const valid = value.trim() === '' || (/^\d{1,9}$/.test(value.trim()) && Number(value) >= 1)
  const save = () => {
    if (!valid || text === null) return
    const keepQuotaMb = value.trim() === '' ? null : Number(value)
    patch.mutate(
      { id: user.id, keepQuotaMb },
      {
        onSuccess: () => {
          setText(null)
          notify.success(keepQuotaMb === null ? `${user.email} may keep videos without limit` : `${user.email} may keep ${keepQuotaMb} MB of videos`)
        },
        onError: actionFailed,
      },
    )
  }
  return (
    <styled.form display="flex" alignItems="center" gap="2" flexWrap="wrap" onSubmit={(e) => {
        e.preventDefault()
        save()
      }}>
      <styled.span textStyle="sm" whiteSpace="nowrap">
        {formatBytes(user.keepUsedBytes)}
      </styled.span>
      <styled.label htmlFor={`${id}-quota`} srOnly>
        Keep quota of {user.email} in MB (empty: no limit)
      </styled.label>
      <styled.input
        id={`${id}-quota`}
        className={input({ size: 'xs' })}
        type="number"
        inputMode="numeric"
        min={1}
        w="6rem"
        placeholder="no limit"
        value={value}
        aria-invalid={valid ? undefined : true}
        onChange={(e) => setText(e.currentTarget.value)}
      />
      <styled.span textStyle="xs" color="fg.muted" aria-hidden>
        MB
      </styled.span>
      <Button type="submit" size="xs" variant="outline" disabled={!valid || text === null || patch.isPending} aria-label={`Save keep quota of ${user.email}`}>
        Save
      </Button>
    </styled.form>
  )
}
