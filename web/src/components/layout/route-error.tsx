import type { ErrorComponentProps } from '@tanstack/react-router'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { errorText } from '~/lib/api.ts'

/** Shown in place of a route whose loader or component failed. */
export function RouteError({ error, reset }: ErrorComponentProps) {
  return (
    <styled.div display="flex" flexDirection="column" gap="4" maxW="xl">
      <Alert status="error">{errorText(error)}</Alert>
      <Button variant="outline" alignSelf="flex-start" onClick={reset}>
        Try again
      </Button>
    </styled.div>
  )
}
