import { createStyleContext } from 'styled-system/jsx'
import { card } from 'styled-system/recipes'

const { withProvider, withContext } = createStyleContext(card)

export const CardRoot = withProvider('div', 'root')
export const CardHeader = withContext('div', 'header')
export const CardBody = withContext('div', 'body')
export const CardFooter = withContext('div', 'footer')
export const CardTitle = withContext('h2', 'title')
export const CardDescription = withContext('div', 'description')
