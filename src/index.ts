// Entry point: `bun src/index.ts` (what `npm start` runs).
//
// This file must stay a plain script that Node can parse: no import/export
// statements, no top-level await, no import.meta, no type syntax. With
// src/package.json marking this folder "commonjs", `node src/index.ts` on
// Node 20 (which has no TypeScript support and would otherwise stop at the
// unknown ".ts" extension) loads it as CommonJS and reaches the check below.
// The real start-up is in main.ts.
if (typeof Bun === 'undefined') {
  console.error('Tunefeed runs on Bun, not Node. Start it with `npm start` (Bun comes from npm) or `bun src/index.ts`.')
  process.exit(1)
}
import('./main.ts')
