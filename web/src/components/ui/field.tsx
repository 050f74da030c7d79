import { Field as ArkField } from '@ark-ui/react/field'
import type { ComponentProps, ReactNode } from 'react'
import { createStyleContext, styled } from 'styled-system/jsx'
import { field, input } from 'styled-system/recipes'

const { withProvider, withContext } = createStyleContext(field)

export const FieldRoot = withProvider(ArkField.Root, 'root')
export const FieldLabel = withContext(ArkField.Label, 'label')
export const FieldHelperText = withContext(ArkField.HelperText, 'helperText')
export const FieldErrorText = withContext(ArkField.ErrorText, 'errorText')
export const FieldInput = styled(ArkField.Input, input)
/** A multi-line input with the input's look (Park UI has no textarea recipe here): grows with its rows. */
export const FieldTextarea = styled(ArkField.Textarea, input, { defaultProps: { rows: 6 } })

export type TextFieldProps = ComponentProps<typeof FieldInput> & {
  label: ReactNode
  /** Error text under the input; marks the field invalid when set. */
  error?: string | null
  helperText?: ReactNode
}

/**
 * Label + input + error text in one: the common form row.
 *
 *     <TextField label="Email" type="email" value={v} onChange={...} error={errors.email} required />
 */
export function TextField({ label, error, helperText, required, readOnly, disabled, ...inputProps }: TextFieldProps) {
  return (
    <FieldRoot invalid={!!error} required={required} readOnly={readOnly} disabled={disabled}>
      <FieldLabel>
        {label}
        {required && (
          <styled.span color="fg.error" ms="1" aria-hidden>
            *
          </styled.span>
        )}
      </FieldLabel>
      <FieldInput {...inputProps} />
      {helperText && <FieldHelperText>{helperText}</FieldHelperText>}
      <FieldErrorText>{error}</FieldErrorText>
    </FieldRoot>
  )
}

export type TextareaFieldProps = ComponentProps<typeof FieldTextarea> & { label: ReactNode; helperText?: ReactNode; error?: string | null }

/** Label + textarea + helper text: TextField for text of several lines. */
export function TextareaField({ label, error, helperText, ...props }: TextareaFieldProps) {
  return (
    <FieldRoot invalid={!!error}>
      <FieldLabel>{label}</FieldLabel>
      <FieldTextarea h="auto" py="2" resize="vertical" fontFamily="mono" textStyle="sm" {...props} />
      {helperText && <FieldHelperText>{helperText}</FieldHelperText>}
      <FieldErrorText>{error}</FieldErrorText>
    </FieldRoot>
  )
}
