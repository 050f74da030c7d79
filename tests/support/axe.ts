import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { settle } from './e2e.ts'

// axe-core (npm, injected into the page: test-only, never in the bundle) for WCAG 2.x A/AA.
// The page's context needs `bypassCSP: true`: the app's script-src refuses the injected script.

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']

export type Finding = { page: string; id: string; impact: string; help: string; targets: string[] }

/** axe-core's serious and critical WCAG A/AA findings on the page as it is now. */
export async function axeFindings(page: Page, label: string): Promise<Finding[]> {
  await page.waitForLoadState('networkidle')
  await settle(page) // colour contrast is read from the painted styles
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE })
  const violations = await page.evaluate(async (tags) => {
    // biome-ignore lint/suspicious/noExplicitAny: axe-core is injected into the page, not imported
    const result = await (window as any).axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
    return result.violations as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[]
  }, WCAG_AA)
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ page: label, id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }))
}
