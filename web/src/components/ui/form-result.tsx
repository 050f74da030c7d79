import type { ReactNode } from 'react'
import { styled } from 'styled-system/jsx'
import { errorText } from '~/lib/api.ts'

export type FormResultProps = {
  /** Shown in green (role status) when set: the line a successful submit leaves, e.g. 'WebDAV Updated'. */
  success?: ReactNode
  /** The failed request's error, shown in red (role alert). */
  error?: unknown
}

/**
 * The one-line outcome under a form's fields:
 *
 *     <FormResult success={save.isSuccess && 'WebDAV Updated'} error={save.error} />
 */
export function FormResult({ success, error }: FormResultProps) {
  if (error) {
    return (
      <styled.p color="fg.error" textStyle="sm" fontWeight="medium" role="alert">
        {errorText(error)}
      </styled.p>
    )
  }
  if (!success) return null
  return (
    <styled.p color="green.text" textStyle="sm" fontWeight="medium" role="status">
      {success}
    </styled.p>
  )
}
