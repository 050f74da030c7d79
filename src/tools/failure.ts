import { NO_ROUTE, YOUTUBE_UNREACHABLE } from '../lib/unreachable.ts'

/**
 * Why a yt-dlp or ffmpeg run failed, as one of the job's `errorKind`s
 * (docs/api.md, Music), and the sentence a person sees for it. The patterns
 * match the real texts those tools print; every text matched is kept, with
 * where it comes from, in tests/fixtures/tool-errors.json (src/tools/failure.test.ts).
 */
export const ERROR_KINDS = [
  'unavailable',
  'private',
  'sign_in_required',
  'bot_check',
  'geo_blocked',
  'unsupported_url',
  'live',
  'too_large',
  'timeout',
  'network',
  'tool_missing',
  'tool_outdated',
  'conversion',
  'disk_full',
  'internal',
  /** A kept video over its user's keep quota (never from a tool's text). */
  'quota',
] as const
export type ErrorKind = (typeof ERROR_KINDS)[number]

/** One sentence per kind: what went wrong and what to do; never a path, command line or trace. */
export const ERROR_SENTENCES: Record<ErrorKind, string> = {
  unavailable: 'This video is unavailable: it was removed or the link is wrong. Check the link and try again.',
  private: 'This video is private. Ask its owner to share it, or use another link.',
  sign_in_required: 'This video needs a signed-in account (age or membership check). An admin can add cookies for downloads.',
  bot_check: 'YouTube asked to confirm this is not a bot, so downloads from YouTube are paused for a while. Try again later; an admin can add cookies or a PO-token provider.',
  geo_blocked: 'This video is not available in the country of the server. Use another link.',
  unsupported_url: 'This link is not a page the downloader can read. Use a link to a video or audio page.',
  live: 'This is a live stream or premiere that has not ended yet. Try again once it has finished.',
  too_large: 'The file is larger than the download size limit. Use a shorter video or ask an admin to raise the limit.',
  timeout: 'The download took too long and was stopped. Try again later.',
  network: 'The site could not be reached. Try again later.',
  tool_missing: 'A tool the server needs (ffmpeg or yt-dlp) is not installed. An admin must install it or set FFMPEG_PATH or YTDLP_PATH.',
  tool_outdated: 'The downloader is out of date for this site. An admin should update yt-dlp, then try again.',
  conversion: 'The audio could not be converted: the file may be damaged or hold no audio. Try another file or link.',
  disk_full: 'The server is out of disk space; ask its administrator.',
  internal: 'Something went wrong on the server. Try again; if it keeps failing, tell an admin.',
  quota: 'Your space for kept videos is used up. Remove kept videos on the Kept page, or ask an admin for more space.',
}

/**
 * The sentence for a failed YouTube download (listen mode, podcast episodes): with no route to
 * YouTube, the one sentence that says so (src/lib/unreachable.ts), else the kind's.
 */
export function youtubeFailureSentence(kind: ErrorKind, message: string | null | undefined): string {
  if (kind === 'network' && message && NO_ROUTE.test(message)) return YOUTUBE_UNREACHABLE
  return failureSentence(kind, message)
}

/** Health's sentence, and a YouTube link job's `error`, without a supported JavaScript runtime (docs/api.md). */
export const JS_RUNTIME_MISSING = 'YouTube downloads need Deno 2.3 or later, or Node 22 or later.'

/**
 * Sentences a failure may carry in place of its kind's: a failure whose
 * message is exactly one of these (a ToolFailure made with it) shows it as the
 * job's `error`; any other message stays in the log, behind the kind's sentence.
 */
const OWN_SENTENCES: ReadonlySet<string> = new Set([JS_RUNTIME_MISSING])

/** A failure's own sentence (one of OWN_SENTENCES), or null when its kind's sentence stands for it. */
export function ownSentence(message: string | null | undefined): string | null {
  return message && OWN_SENTENCES.has(message) ? message : null
}

/** The sentence a person sees for a failure of `kind` whose recorded message is `message`. */
export function failureSentence(kind: ErrorKind, message: string | null | undefined): string {
  return message && OWN_SENTENCES.has(message) ? message : ERROR_SENTENCES[kind]
}

/**
 * Kinds another attempt may fix: retried with backoff; the others fail the job at once. A bot check
 * is not retried: another try only digs deeper (it pauses YouTube instead, src/tools/pace.ts).
 */
export const TRANSIENT_KINDS: ReadonlySet<ErrorKind> = new Set(['network', 'timeout', 'tool_outdated'])

/** A tool run that failed, with its kind; `message` keeps the tool's own words for the log. */
export class ToolFailure extends Error {
  override name = 'ToolFailure'
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message)
  }
}

// Order matters: the first rule whose pattern is found wins. yt-dlp prints warnings before the
// final ERROR line (an nsig warning before a 403, say), so the more telling kinds come first.
const YTDLP_RULES: [ErrorKind, RegExp][] = [
  ['disk_full', /No space left on device|Disk quota exceeded/i],
  ['bot_check', /not a bot|captcha challenge|has been rate-limited by YouTube|HTTP Error 429/i],
  ['too_large', /File is larger than max-filesize/i],
  ['private', /Private video|This video is private|video has been made private/i],
  ['geo_blocked', /geo restriction|not made this video available in your country|not available (?:from|in) your (?:location|country)/i],
  [
    'sign_in_required',
    /confirm your age|age-restricted|only available for registered users|Login details are needed|members-only|available to this channel's members|Join this channel/i,
  ],
  ['live', /This live event will begin|Premieres in|livestream has not yet started|Premiere will begin|is_live|live stream recording is not available/i],
  ['unsupported_url', /Unsupported URL/i],
  ['unavailable', /Video unavailable|This video has been removed|This video is no longer available|HTTP Error 40[34]|HTTP Error 410/i],
  [
    'tool_outdated',
    /Signature extraction failed|nsig extraction failed|Unable to extract nsig|Signature solving failed|n challenge solving failed|Requested format is not available/i,
  ],
  ['timeout', /timed out/i],
  [
    'network',
    /Unable to download webpage|Connection refused|Temporary failure in name resolution|Name or service not known|Network is unreachable|Connection reset|Remote end closed|HTTP Error 5\d\d|Unable to connect to proxy|IncompleteRead|Failed to resolve/i,
  ],
]

const FFMPEG_RULES: [ErrorKind, RegExp][] = [
  ['disk_full', /No space left on device|Disk quota exceeded/i],
  [
    'conversion',
    /Invalid data found when processing input|matches no streams|does not contain any stream|could not find codec parameters|Invalid argument|End of file|moov atom not found|Error while decoding/i,
  ],
]

/**
 * The advice yt-dlp appends to any error it did not expect (ExtractorError's
 * bug_reports_message: "; please report this issue on … Confirm you are on the
 * latest version using yt-dlp -U", and youtube-dl's older wording). It says
 * nothing about the failure (a refused connection, a reset or a 503 carry it
 * too), so it is removed before the rules look at the text.
 */
const ADVICE = /;?\s*please report this issue on\s.*$|Confirm you are on the latest version using\s+\S+\s+-U/gim

export const withoutAdvice = (output: string) => output.replace(ADVICE, '')

export function classifyYtdlp(output: string): ErrorKind {
  const text = withoutAdvice(output)
  return YTDLP_RULES.find(([, re]) => re.test(text))?.[0] ?? 'internal'
}

/** Any ffmpeg failure on an input is a conversion failure; the patterns only document the usual texts. */
export function classifyFfmpeg(output: string): ErrorKind {
  return FFMPEG_RULES.find(([, re]) => re.test(output))?.[0] ?? 'conversion'
}
