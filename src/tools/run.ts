import { ProcessFailed, runProcess, type ProcessResult } from '../lib/process.ts'
import { ToolFailure, type ErrorKind } from './failure.ts'

/**
 * runProcess for a tool that may not be there: a missing or non-executable
 * file is `tool_missing`, not a crash. A non-zero exit is classified by
 * `classify` from the tool's own words (stderr and, for yt-dlp, stdout).
 */
export async function runTool(
  tool: 'yt-dlp' | 'ffmpeg',
  cmd: string[],
  opts: Parameters<typeof runProcess>[1] & { classify: (output: string) => ErrorKind },
): Promise<ProcessResult> {
  const { classify, ...runOpts } = opts
  let result: ProcessResult
  try {
    result = await runProcess(cmd, runOpts)
  } catch (err) {
    if (isNotRunnable(err)) throw new ToolFailure('tool_missing', `${tool} could not be started: ${(err as Error).message}`)
    throw err
  }
  if (result.code !== 0) {
    const failed = new ProcessFailed(tool, result)
    // setpriv reports a missing program with exit 127 (execvp failed) instead of a spawn error
    const kind = result.code === 127 && /No such file|Permission denied|failed to execute/i.test(result.stderr) ? 'tool_missing' : classify(`${result.stderr}\n${result.stdout}`)
    throw new ToolFailure(kind, failed.message)
  }
  return result
}

function isNotRunnable(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code
  return code === 'ENOENT' || code === 'EACCES' || /ENOENT|EACCES|no such file/i.test(String((err as Error)?.message))
}
