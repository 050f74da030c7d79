import { JS_RUNTIME_MISSING } from './failure.ts'
import type { Toolbox } from './toolbox.ts'

/** GET /api/health entries: a missing tool makes the app `degraded`, with a sentence saying how to fix it. */
export function toolHealth(tools: Toolbox): Record<string, () => Promise<void>> {
  return {
    async ffmpeg() {
      if (!tools.ready) throw new Error(STARTING)
      // a configured path that does not answer `-version` is as good as missing
      if (!tools.ffmpeg?.version) throw new Error('ffmpeg is missing: install it (apt-get install ffmpeg) or set FFMPEG_PATH')
    },
    async ytdlp() {
      if (!tools.ready) throw new Error(STARTING)
      if (!tools.ytdlp) throw new Error('yt-dlp is missing: install it, set YTDLP_PATH, or let the app manage it (YTDLP_UPDATE)')
    },
    // YouTube's challenges need a runtime yt-dlp supports (src/tools/js-runtime.ts); other sites work without
    async jsRuntime() {
      if (!tools.ready) throw new Error(STARTING)
      if (!tools.js?.supported) throw new Error(JS_RUNTIME_MISSING)
    },
  }
}

/** Until the tools are found (src/tools/toolbox.ts init, after the server first answers). */
const STARTING = 'starting: looking for the tools'
