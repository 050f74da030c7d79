import { Tabs as ArkTabs } from '@ark-ui/react/tabs'
import { css } from 'styled-system/css'
import { createStyleContext } from 'styled-system/jsx'
import { tabs } from 'styled-system/recipes'

const { withProvider, withContext } = createStyleContext(tabs)

// On a phone a strip of five tabs is wider than the screen: the tabs wrap onto a second row
// (nothing is cut off, nothing needs a hidden scroll), the chosen one underlined by itself
// since the sliding indicator assumes one row.
const wrapOnPhones = css({
  flexWrap: { base: 'wrap', md: 'nowrap' },
  rowGap: { base: '1', md: '0' },
  '& > [data-part=trigger][data-selected]': { boxShadow: { base: 'inset 0 -2px 0 0 var(--colors-color-palette-default)', md: 'none' } },
  '& > [data-part=indicator]': { display: { base: 'none', md: 'block' } },
})

/**
 * Park UI tabs (variants line, enclosed, outline):
 *
 *     <TabsRoot defaultValue="a"><TabsList><TabsTrigger value="a">A</TabsTrigger><TabsIndicator /></TabsList>
 *       <TabsContent value="a">...</TabsContent></TabsRoot>
 */
export const TabsRoot = withProvider(ArkTabs.Root, 'root')
export const TabsList = withContext(ArkTabs.List, 'list', { defaultProps: { className: wrapOnPhones } })
export const TabsTrigger = withContext(ArkTabs.Trigger, 'trigger')
export const TabsContent = withContext(ArkTabs.Content, 'content')
export const TabsIndicator = withContext(ArkTabs.Indicator, 'indicator')
