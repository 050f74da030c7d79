import { Portal } from '@ark-ui/react/portal'
import { Select as ArkSelect, type ListCollection, createListCollection } from '@ark-ui/react/select'
import { CheckIcon, ChevronsUpDownIcon } from 'lucide-react'
import { useMemo } from 'react'
import { createStyleContext } from 'styled-system/jsx'
import { select } from 'styled-system/recipes'

const { withProvider, withContext } = createStyleContext(select)

const Root = withProvider(ArkSelect.Root, 'root')
const Label = withContext(ArkSelect.Label, 'label')
const Control = withContext(ArkSelect.Control, 'control')
const Trigger = withContext(ArkSelect.Trigger, 'trigger')
const ValueText = withContext(ArkSelect.ValueText, 'valueText')
const Indicator = withContext(ArkSelect.Indicator, 'indicator')
const Positioner = withContext(ArkSelect.Positioner, 'positioner')
const Content = withContext(ArkSelect.Content, 'content')
const Item = withContext(ArkSelect.Item, 'item')
const ItemText = withContext(ArkSelect.ItemText, 'itemText')
const ItemIndicator = withContext(ArkSelect.ItemIndicator, 'itemIndicator')

export type SelectOption = { label: string; value: string; disabled?: boolean }

export type SelectProps = {
  label?: string
  options: SelectOption[]
  /** Selected values (one entry at most unless `multiple`). */
  value: string[]
  onValueChange: (value: string[]) => void
  /** Multi-select: the list stays open and each click toggles an option. */
  multiple?: boolean
  placeholder?: string
  size?: 'sm' | 'md' | 'lg'
  disabled?: boolean
  /** Width of the control (Panda size token or CSS length). */
  width?: string
}

/**
 * Park UI select over Ark's Select:
 *
 *     <Select label="Categories" multiple options={[{label:'Music', value:'10'}]} value={v} onValueChange={setV} />
 */
export function Select({ label, options, value, onValueChange, multiple, placeholder = 'Select', size, disabled, width = 'full' }: SelectProps) {
  const collection = useMemo(() => createListCollection({ items: options }), [options])
  return (
    <Root
      collection={collection as unknown as ListCollection<unknown>}
      value={value}
      onValueChange={(d) => onValueChange(d.value)}
      multiple={multiple}
      closeOnSelect={!multiple}
      size={size}
      disabled={disabled}
      positioning={{ sameWidth: true }}
      width={width}
      lazyMount
      unmountOnExit
    >
      {label && <Label>{label}</Label>}
      <Control>
        <Trigger>
          <ValueText placeholder={placeholder} overflow="hidden" textOverflow="ellipsis" whiteSpace="nowrap" />
          <Indicator>
            <ChevronsUpDownIcon />
          </Indicator>
        </Trigger>
      </Control>
      <Portal>
        <Positioner>
          <Content maxH="72" overflowY="auto">
            {collection.items.map((item) => (
              <Item key={item.value} item={item}>
                <ItemText>{item.label}</ItemText>
                <ItemIndicator>
                  <CheckIcon />
                </ItemIndicator>
              </Item>
            ))}
          </Content>
        </Positioner>
      </Portal>
      <ArkSelect.HiddenSelect />
    </Root>
  )
}
