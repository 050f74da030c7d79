import { ark } from '@ark-ui/react/factory'
import type { ComponentProps } from 'react'
import { styled } from 'styled-system/jsx'
import { input } from 'styled-system/recipes'

/** Park UI text input (use inside a Field to get a label and error text). */
export const Input = styled(ark.input, input)
export type InputProps = ComponentProps<typeof Input>
