/**
 * The managed Deno's pinned release (docs/decisions/231-pinned-deno.md), as the PO-token
 * plugin's is pinned (src/tools/pot.ts): DENO_RELEASE_URL names this version by default, and a
 * zip whose SHA-256 is not the one below for this machine (or DENO_SHA256) is never unpacked
 * nor run, whatever the release's own `.sha256sum` says. Moving to a newer Deno is a change
 * here: the version, the URL and the four hashes together.
 */
export const DENO_VERSION = '2.9.7'
export const DENO_RELEASE_URL = `https://github.com/denoland/deno/releases/download/v${DENO_VERSION}`

/** SHA-256 of `deno-<target>.zip` of that release, per target (src/tools/js-runtime.ts denoTarget). */
export const DENO_SHA256: Readonly<Record<string, string>> = {
  'x86_64-unknown-linux-gnu': 'c6527f24f4b16031d3ae4fa9f658d5f11534c8d84ce7dc8502420280919c3490',
  'aarch64-unknown-linux-gnu': 'c832298b1ad4422481334855f6003e0f54145762c5a134f20a489511d2f65bbf',
  'x86_64-apple-darwin': '95daaff11c116a52ad54785e7914c8e9c9cdcaba793c5ed929c74ca2d8e6259a',
  'aarch64-apple-darwin': '5cd46d6268f6f78f5d88bdc7159d20bd44cdaa4b3303474839f87ec6fe7ae25c',
}
