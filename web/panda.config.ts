import { defineConfig } from '@pandacss/dev'
import { createPreset } from '@park-ui/panda-preset'
import green from '@park-ui/panda-preset/colors/green'
import iris from '@park-ui/panda-preset/colors/iris'
import slate from '@park-ui/panda-preset/colors/slate'

export default defineConfig({
  preflight: true,
  presets: ['@pandacss/preset-base', createPreset({ accentColor: iris, grayColor: slate, radius: 'md' })],
  include: ['./src/**/*.{ts,tsx}'],
  exclude: [],
  jsxFramework: 'react',
  outdir: 'styled-system',
  // every recipe is generated, so variants picked at run time (colorPalette, size) always exist
  staticCss: { recipes: '*' },
  theme: {
    extend: {
      // the preset ships red, gray and the accent only; success messages need green
      tokens: {
        colors: { green: green.tokens },
        fonts: { body: { value: "'Inter Variable', ui-sans-serif, system-ui, sans-serif" } },
      },
      // a few preset recipes (selected outline buttons, ...) still name the `accent` palette
      semanticTokens: { colors: { green: green.semanticTokens, accent: iris.semanticTokens } },
    },
  },
  globalCss: {
    extend: {
      html: { scrollBehavior: 'smooth', fontFamily: 'body' },
    },
  },
})
