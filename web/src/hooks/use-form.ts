import { type FormEvent, useCallback, useState } from 'react'
import type { z } from 'zod'

type Values = Record<string, string | boolean>
export type FormErrors<T> = Partial<Record<keyof T, string>>

export type UseFormOptions<T extends Values, S extends z.ZodType> = {
  initialValues: T
  /** Shared zod schema (src/<feature>/schema.ts); its messages become field errors. */
  schema: S
  /** Fields that must not be empty (or, for checkboxes, must be checked): error text 'Required'. */
  required?: (keyof T)[]
}

/**
 * Small form state for our forms: values, per-field errors, validation on
 * submit and, once submitted, again on every change (docs/product.md#account-forms).
 */
export function useForm<T extends Values, S extends z.ZodType>({ initialValues, schema, required = [] }: UseFormOptions<T, S>) {
  const [values, setValues] = useState<T>(initialValues)
  const [errors, setErrors] = useState<FormErrors<T>>({})
  const [submitted, setSubmitted] = useState(false)

  const validate = useCallback(
    (v: T): { errors: FormErrors<T>; data?: z.output<S> } => {
      const found: FormErrors<T> = {}
      for (const key of required) {
        const value = v[key]
        if (value === false || (typeof value === 'string' && value.trim() === '')) found[key] = 'Required'
      }
      const parsed = schema.safeParse(v)
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const key = issue.path[0] as keyof T | undefined
          if (key !== undefined && !found[key]) found[key] = issue.message
        }
      }
      const ok = Object.keys(found).length === 0 && parsed.success
      return { errors: found, data: ok ? (parsed.data as z.output<S>) : undefined }
    },
    [schema, required],
  )

  const setValue = <K extends keyof T>(key: K, value: T[K]) => {
    const next = { ...values, [key]: value }
    setValues(next)
    if (submitted) setErrors(validate(next).errors)
  }

  /**
   * Validates, shows errors, and calls `onValid` with the parsed data when everything passes.
   * `onAttempt` runs on every submit first: pass the mutation's `reset` so a new attempt clears
   * the last server error instead of showing it beside new field errors.
   */
  const handleSubmit = (onValid: (data: z.output<S>) => void, onAttempt?: () => void) => (event?: FormEvent) => {
    event?.preventDefault()
    // a form inside a portal (dialog) must not also submit the form it was opened from
    event?.stopPropagation()
    onAttempt?.()
    setSubmitted(true)
    const result = validate(values)
    setErrors(result.errors)
    if (result.data !== undefined) onValid(result.data)
  }

  /** Back to `to` (default: the initial values) with no errors shown. */
  const reset = (to: T = initialValues) => {
    setValues(to)
    setErrors({})
    setSubmitted(false)
  }

  /** Props for a text field: `<TextField label="Email" {...form.text('email')} />`. */
  const text = (key: keyof T & string) => ({
    name: key,
    value: String(values[key] ?? ''),
    onChange: (e: { target: { value: string } }) => setValue(key, e.target.value as T[typeof key]),
    error: errors[key],
  })

  return { values, errors, setValue, handleSubmit, reset, text }
}
