import type { ComponentProps, ReactNode } from 'react'
import { styled } from 'styled-system/jsx'
import { Button, type ButtonProps } from './button.tsx'

export type FormActionsProps = Omit<ComponentProps<typeof styled.div>, 'children'> & {
  /** Label of the submit button. */
  submit: ReactNode
  /** Props of the submit button: `loading`, `disabled`, `variant`, `size`, ... */
  submitProps?: ButtonProps
  /** Shows an outline "Clear" button after the submit button. */
  onClear?: () => void
  /** `end` puts the buttons at the right edge of the form. */
  align?: 'start' | 'end'
  /** More buttons after Submit (and Clear). */
  children?: ReactNode
}

/**
 * The button row of a form: the submit button, an optional Clear, then any others.
 *
 *     <FormActions submit="Submit" submitProps={{ loading: login.isPending }} onClear={form.reset} />
 */
export function FormActions({ submit, submitProps, onClear, align = 'start', children, ...rowProps }: FormActionsProps) {
  return (
    <styled.div display="flex" gap="3" flexWrap="wrap" alignItems="center" justifyContent={align === 'end' ? 'flex-end' : 'flex-start'} {...rowProps}>
      <Button type="submit" {...submitProps}>
        {submit}
      </Button>
      {onClear && (
        <Button variant="outline" onClick={onClear}>
          Clear
        </Button>
      )}
      {children}
    </styled.div>
  )
}
