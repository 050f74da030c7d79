import { Checkbox as ArkCheckbox } from '@ark-ui/react/checkbox'
import { CheckIcon, MinusIcon } from 'lucide-react'
import type { ComponentProps, ReactNode } from 'react'
import { createStyleContext } from 'styled-system/jsx'
import { checkbox } from 'styled-system/recipes'

const { withProvider, withContext } = createStyleContext(checkbox)

const Root = withProvider(ArkCheckbox.Root, 'root')
const Control = withContext(ArkCheckbox.Control, 'control')
const Indicator = withContext(ArkCheckbox.Indicator, 'indicator')
const Label = withContext(ArkCheckbox.Label, 'label')

export type CheckboxProps = ComponentProps<typeof Root> & { children?: ReactNode }

/** Park UI checkbox: `checked` / `onCheckedChange({ checked })`; `readOnly` shows a value that cannot change. */
export function Checkbox({ children, ...props }: CheckboxProps) {
  return (
    <Root {...props}>
      <Control>
        <Indicator>
          <CheckIcon />
        </Indicator>
        <Indicator indeterminate>
          <MinusIcon />
        </Indicator>
      </Control>
      {/* right after the control: the recipe draws the focus ring with `control:has(+ :focus-visible)` */}
      <ArkCheckbox.HiddenInput />
      {children && <Label>{children}</Label>}
    </Root>
  )
}
