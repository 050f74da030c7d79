import { Tabs as ArkTabs } from '@ark-ui/react/tabs'
import { createStyleContext } from 'styled-system/jsx'
import { tabs } from 'styled-system/recipes'

const { withProvider, withContext } = createStyleContext(tabs)

/**
 * Park UI tabs (variants line, enclosed, outline):
 *
 *     <TabsRoot defaultValue="a"><TabsList><TabsTrigger value="a">A</TabsTrigger><TabsIndicator /></TabsList>
 *       <TabsContent value="a">...</TabsContent></TabsRoot>
 */
export const TabsRoot = withProvider(ArkTabs.Root, 'root')
export const TabsList = withContext(ArkTabs.List, 'list')
export const TabsTrigger = withContext(ArkTabs.Trigger, 'trigger')
export const TabsContent = withContext(ArkTabs.Content, 'content')
export const TabsIndicator = withContext(ArkTabs.Indicator, 'indicator')
