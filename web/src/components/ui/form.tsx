import type { ComponentProps } from 'react'
import { styled } from 'styled-system/jsx'

export type FormProps = ComponentProps<typeof styled.form>

/**
 * A form whose fields are checked by our own validation (`noValidate`: no browser
 * bubbles), its rows in a column: `<Form onSubmit={form.handleSubmit(...)}>`.
 * Style props (`gap`, ...) override the defaults.
 */
export function Form(props: FormProps) {
  return <styled.form noValidate display="flex" flexDirection="column" gap="5" {...props} />
}
